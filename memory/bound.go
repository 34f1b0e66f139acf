package memory

// BoundTarget is one distinct stamp that memories of a project are bound
// to — a watermark's kind, target, fingerprint and state — and how many
// memories carry it. A wake check compares these with the world (a few
// thousand at most, one per file or scope and stamp) instead of reading
// every bound memory, and reads the memories of those that moved.
type BoundTarget struct {
	Kind        WatermarkKind  `json:"kind"`
	Target      string         `json:"target,omitempty"`
	Fingerprint string         `json:"fingerprint,omitempty"`
	State       WatermarkState `json:"state"`
	Count       int            `json:"count"`
}
