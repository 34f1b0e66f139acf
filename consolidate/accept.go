package consolidate

import (
	"context"
	"fmt"
	"strings"

	"cairn/memory"
)

// Accept carries out an open proposal as a run of its own, so that it can
// be undone like any run. edited, when not nil, is the candidate as the
// person corrected it (its title, body, layer, kind and tags replace the
// proposal's); a candidate a person edited counts as stated by them. Only
// a person accepts.
func Accept(ctx context.Context, st memory.Store, p memory.Project, id string, edited *memory.Memory, by memory.Actor) (memory.Run, error) {
	if by != memory.ActorUser {
		return memory.Run{}, fmt.Errorf("only a person accepts a proposal: it waits in the inbox (cairn inbox)")
	}
	pr, err := openProposal(ctx, st, p, id)
	if err != nil {
		return memory.Run{}, err
	}
	cand := pr.Memory
	if cand != nil {
		cand = cand.Clone()
		cand.ID = memory.NewID()
		if edited != nil {
			applyEdit(cand, edited)
		}
	} else if edited != nil && pr.Kind != memory.ProposeArchive {
		// A merge or supersession of two stored memories, rewritten by the
		// person: the rewrite supersedes both.
		cand = &memory.Memory{ID: memory.NewID(), Project: p.ID}
		applyEdit(cand, edited)
	}
	target := func() (*memory.Memory, error) { return st.Get(ctx, pr.Target) }
	var ops []memory.Op
	result := ""
	switch pr.Kind {
	case memory.ProposeRemember:
		ops = append(ops, memory.Op{Kind: memory.OpCreate, Memory: cand, Draft: pr.Draft,
			Change: memory.Change{Kind: memory.ChangeCreate, Memory: cand.ID, Layer: cand.Layer, Title: cand.Title}})
		result = cand.ID
	case memory.ProposeArchive:
		t, err := target()
		if err != nil {
			return memory.Run{}, err
		}
		ops = append(ops, memory.Op{Kind: memory.OpArchive, Target: t.ID, Reason: "proposal " + pr.ID,
			Change: memory.Change{Kind: memory.ChangeArchive, Target: t.ID, TargetTitle: t.Title, Layer: t.Layer}})
		result = t.ID
	case memory.ProposeMerge, memory.ProposeSupersede:
		t, err := target()
		if err != nil {
			return memory.Run{}, err
		}
		if cand != nil {
			if pr.Kind == memory.ProposeMerge {
				cand.Salience.Reinforcements = t.Salience.Reinforcements + 1
				// The same fact in other words stays where it was filed,
				// unless the person filed it elsewhere.
				if edited == nil || !edited.Layer.Valid() {
					cand.Layer = t.Layer
				}
				if edited == nil || !edited.Kind.Valid() {
					cand.Kind = t.Kind
				}
			}
			if cand.Layer == 0 {
				cand.Layer = t.Layer
			}
			ops = append(ops, memory.Op{Kind: memory.OpSupersede, Target: t.ID, Memory: cand, Draft: pr.Draft,
				Change: memory.Change{Kind: memory.ChangeSupersede, Memory: cand.ID, Target: t.ID, Layer: cand.Layer, Title: cand.Title, TargetTitle: t.Title}})
			result = cand.ID
			if pr.Other != "" {
				o, err := st.Get(ctx, pr.Other)
				if err != nil {
					return memory.Run{}, err
				}
				ops = append(ops, memory.Op{Kind: memory.OpSupersede, Target: o.ID, With: cand.ID,
					Change: memory.Change{Kind: memory.ChangeSupersede, Memory: cand.ID, Target: o.ID, Layer: cand.Layer, Title: cand.Title, TargetTitle: o.Title}})
			}
			if c, ok := Contradicts(t, cand); ok && pr.Kind == memory.ProposeSupersede {
				ops = append(ops, lessonOps(t, cand, c)...)
			}
		} else {
			o, err := st.Get(ctx, pr.Other)
			if err != nil {
				return memory.Run{}, err
			}
			ops = append(ops, memory.Op{Kind: memory.OpSupersede, Target: t.ID, With: o.ID,
				Change: memory.Change{Kind: memory.ChangeSupersede, Memory: o.ID, Target: t.ID, Layer: o.Layer, Title: o.Title, TargetTitle: t.Title}})
			result = o.ID
			if c, ok := Contradicts(t, o); ok && pr.Kind == memory.ProposeSupersede {
				ops = append(ops, lessonOps(t, o, c)...)
			}
		}
	}
	ops = append(ops, memory.Op{Kind: memory.OpDecide, Proposal: &memory.Proposal{ID: pr.ID, State: memory.ProposalAccepted, Result: result},
		Change: memory.Change{Kind: memory.ChangeAccept, Proposal: pr.ID, Target: pr.Target, Memory: result}})
	run := memory.Run{ID: memory.NewID(), Project: p.ID, Actor: memory.ActorUser,
		Summary: fmt.Sprintf("accepted the %s proposal %s", pr.Kind, pr.ID)}
	return st.Apply(ctx, run, ops)
}

// lessonOps are the steps of the lesson of wrong corrected by right, if any.
func lessonOps(wrong, right *memory.Memory, c Conflict) []memory.Op {
	l := Lesson(wrong, right, c)
	if l == nil {
		return nil
	}
	l.ID, l.Project, l.Status = memory.NewID(), right.Project, memory.StatusActive
	if l.Source.Actor == "" {
		l.Source = memory.Source{Actor: memory.ActorSystem}
	}
	return []memory.Op{
		{Kind: memory.OpCreate, Memory: l, Change: memory.Change{Kind: memory.ChangeLesson, Memory: l.ID, Target: wrong.ID, Layer: l.Layer, Title: l.Title, TargetTitle: wrong.Title}},
		{Kind: memory.OpLink, Edge: &memory.Edge{From: l.ID, Kind: memory.EdgeLessonOf, To: wrong.ID, Weight: 1},
			Change: memory.Change{Kind: memory.ChangeLink, Memory: l.ID, Target: wrong.ID, Title: l.Title, TargetTitle: wrong.Title, Reason: "lesson_of"}},
	}
}

// Reject closes an open proposal without changing any memory; the same
// proposal is not made again.
func Reject(ctx context.Context, st memory.Store, p memory.Project, id string, by memory.Actor) (memory.Run, error) {
	if by != memory.ActorUser {
		return memory.Run{}, fmt.Errorf("only a person rejects a proposal: it waits in the inbox (cairn inbox)")
	}
	pr, err := openProposal(ctx, st, p, id)
	if err != nil {
		return memory.Run{}, err
	}
	ops := []memory.Op{{Kind: memory.OpDecide, Proposal: &memory.Proposal{ID: pr.ID, State: memory.ProposalRejected},
		Change: memory.Change{Kind: memory.ChangeReject, Proposal: pr.ID, Target: pr.Target}}}
	run := memory.Run{ID: memory.NewID(), Project: p.ID, Actor: memory.ActorUser,
		Summary: fmt.Sprintf("rejected the %s proposal %s", pr.Kind, pr.ID)}
	return st.Apply(ctx, run, ops)
}

// openProposal finds an open proposal of project p.
func openProposal(ctx context.Context, st memory.Store, p memory.Project, id string) (memory.Proposal, error) {
	pr, err := st.Proposal(ctx, id)
	if err != nil {
		return pr, err
	}
	if pr.Project != p.ID {
		return pr, fmt.Errorf("proposal %s belongs to another project: open that project to decide it", pr.ID)
	}
	if pr.State != memory.ProposalOpen {
		return pr, fmt.Errorf("proposal %s was already %s on %s", pr.ID, pr.State, pr.DecidedAt.Local().Format("2006-01-02 15:04"))
	}
	return pr, nil
}

// applyEdit puts what a person wrote over a candidate.
func applyEdit(m, e *memory.Memory) {
	if t := strings.TrimSpace(e.Title); t != "" {
		m.Title = t
	}
	if b := strings.TrimSpace(e.Body); b != "" {
		if e.Title == "" && m.Title != "" && m.Title == memory.DeriveTitle(m.Body) {
			m.Title = "" // derived from the old body: derive it from the new one
		}
		m.Body = b
	}
	if e.Layer.Valid() {
		m.Layer = e.Layer
	}
	if e.Kind.Valid() {
		m.Kind = e.Kind
	}
	if e.Tags != nil {
		m.Tags = e.Tags
	}
	m.Provenance, m.Confidence = memory.ProvUserStated, memory.ProvUserStated.BaseConfidence()
	m.Source = memory.Source{Actor: memory.ActorUser}
}
