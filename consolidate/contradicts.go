package consolidate

import (
	"strings"

	"cairn/consolidate/claims"
	"cairn/memory"
)

// Conflict says how newer contradicts older (see claims.Conflict).
type Conflict = claims.Conflict

// ClaimText is the text of a memory that Contradicts reads: its body, with
// the title in front when a person chose one. Bucket memories by
// SubjectKey(ClaimText(m)) so that pairs Contradicts can find share a
// bucket (or one's key holds the other's words).
func ClaimText(m *memory.Memory) string {
	body := strings.TrimSpace(m.Body)
	if body == "" {
		return m.Title
	}
	// A title drawn from the body (memory.DeriveTitle: its first line, cut
	// with "…" when long) says nothing the body does not; this test is
	// cheaper than deriving it again for every comparison.
	if m.Title == "" || strings.HasPrefix(body, strings.TrimSuffix(m.Title, "…")) {
		return m.Body
	}
	return m.Title + "\n" + m.Body
}

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
	ot, nt := ClaimText(older), ClaimText(newer)
	c, ok := claims.Compare(ot, nt, eventLike(older) || eventLike(newer))
	if !ok {
		return Conflict{}, false
	}
	return otherSubjects(ot, nt, c)
}

// otherSubjects: another package, task, file or environment on each side
// is another subject, whatever the shape of the two sentences.
func otherSubjects(ot, nt string, c Conflict) (Conflict, bool) {
	if otherThings(ot, nt) {
		return Conflict{}, false
	}
	return c, true
}

func eventLike(m *memory.Memory) bool {
	return m.Layer == memory.LayerEpisode || m.Kind == memory.KindEvent
}
