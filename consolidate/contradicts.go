package consolidate

import (
	"cairn/consolidate/claims"
	"cairn/consolidate/update"
	"cairn/memory"
)

// Conflict says how newer contradicts older (see claims.Conflict).
type Conflict = claims.Conflict

// Contradicts reports whether newer states a different value than older for
// the same subject.
func Contradicts(older, newer *memory.Memory) (Conflict, bool) {
	if older == nil || newer == nil || older == newer || (older.ID != "" && older.ID == newer.ID) {
		return Conflict{}, false
	}
	if older.Project != "" && newer.Project != "" && older.Project != newer.Project {
		return Conflict{}, false
	}
	// Lessons are about cairn's own mistakes, not facts of the world.
	if older.Layer == memory.LayerMeta || newer.Layer == memory.LayerMeta || older.Kind == memory.KindLesson || newer.Kind == memory.KindLesson {
		return Conflict{}, false
	}
	ot, nt := claims.ClaimText(older), claims.ClaimText(newer)
	c, ok := claims.Compare(ot, nt, eventLike(older) || eventLike(newer))
	if !ok {
		return Conflict{}, false
	}
	return otherSubjects(ot, nt, c)
}

// otherSubjects: another package, task, file or environment on each side
// is another subject, whatever the shape of the two sentences.
func otherSubjects(ot, nt string, c Conflict) (Conflict, bool) {
	if update.OtherThings(ot, nt) {
		return Conflict{}, false
	}
	return c, true
}

func eventLike(m *memory.Memory) bool {
	return m.Layer == memory.LayerEpisode || m.Kind == memory.KindEvent
}

// correctedClaim reads a correction "X, not Y" (or "not Y but X") whose Y
// is corrects: what changed, and the wrong claim as a sentence ("port is
// 8080"), so that a lesson about it names the subject and both values.
func correctedClaim(m *memory.Memory, corrects string) (Conflict, string, bool) {
	return claims.Corrected(claims.ClaimText(m), corrects)
}
