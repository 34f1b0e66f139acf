package update

import "cairn/internal/logit"

// The subject gate: whether a newer text is about a stored fact at all,
// whatever it says of it. Read alone, every pair of the sets the update
// model was fitted on is about one subject, so the model learned what a
// change looks like, not whether it is this fact's: among a store's facts
// it proposed "Friday deploy freeze is retired" as an update of "Deploy
// notifications go to the #deploys Slack channel". The gate is a second
// logistic model over the pair's subject signals and where the fact stood
// among the text's candidates, fitted on every set read together (each
// text against the facts sharing most of its rarer words), that lets
// through 92 % of the sets' updates' own facts; what it refuses the model
// never proposes (a certain reading of the rules still stands).

// gateSignals are the update model's signals of the subject alone.
var gateSignals = []int{sBias, sSharedTerms, sOlderCovered, sNewerKnown, sOpensOnSubject, sNameSaid, sOldValuesSaid,
	sValueKindsShared, sLettersShared, sWordsInside, sLabelled, sOldNamesLeftOut, sNewerNamesUnknown,
	sSharedNumber, sSharedName, sSharedQuantity, sAnotherEnv, sEnvLeftOut, sNarrowedBefore, sNarrowedOwner, sNarrowedFor, sNarrowedKind}

// gateFeatureNames name the gate's weights, for its printed source.
var gateFeatureNames = func() []string {
	var out []string
	for _, i := range gateSignals {
		out = append(out, updateFeatureNames[i])
	}
	return append(out, "share of the first's score", "the first", "level with the first")
}()

// gateFeatures are the gate's signals of a pair whose update signals are
// f: its subject's, and where the older text stood among the newer's
// candidates — its score over the first's (1 when it is alone) and its
// rank.
func gateFeatures(f []float64, share float64, rank int) []float64 {
	g := make([]float64, 0, len(gateSignals)+3)
	for _, i := range gateSignals {
		g = append(g, f[i])
	}
	return append(g, share, signal(rank == 0), signal(share >= 0.999))
}

// aboutIt reports whether the gate lets the pair through.
func aboutIt(f []float64, share float64, rank int) bool {
	return fittedUpdateGate.Score(gateFeatures(f, share, rank), nil) >= fittedUpdateGate.Threshold
}

// fittedUpdateGate is printed by TestFitUpdateGate, fitted on the dev set
// and held-out 1–8.
var fittedUpdateGate = logit.Model{Threshold: 0.4187, Weights: []float64{
	-2.7437, // bias
	0.6893,  // shared terms
	-0.0676, // older covered
	-0.1069, // newer known
	0.7677,  // opens on the subject
	0.4027,  // name said
	0.5516,  // old values said
	0.9758,  // value kinds shared
	0.6651,  // letters shared
	1.1230,  // words inside
	-0.2048, // labelled by the subject
	-0.5083, // old names left out
	-0.9003, // newer names unknown
	0.6697,  // shared and a number differs
	0.4387,  // shared and a name differs
	0.2963,  // shared and a quantity differs
	0.0268,  // another environment
	-0.1233, // environment left out
	0.0962,  // narrowed: word before
	0.0626,  // narrowed: possessive
	-0.2046, // narrowed: for X
	-0.2602, // narrowed: its kind
	0.8664,  // share of the first's score
	0.8779,  // the first
	0.2153,  // level with the first
}}
