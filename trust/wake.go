package trust

import (
	"context"
	"strconv"

	"cairn/memory"
)

// bound is what a wake check has to look at: the bound memories some of
// whose watermarks would change state. Each distinct stamp of the project
// is checked once, standing in for every memory that carries it (a
// watermark's new state depends on its kind, target, fingerprint and
// state alone), and only the memories of the stamps that changed are
// read. When nothing moved, no memory is read at all.
func (s *Service) bound(ctx context.Context) ([]*memory.Memory, error) {
	go s.Checker.preload() // the kept fingerprints are read while the store answers
	sum, err := s.St.BoundTargets(ctx, s.Project)
	if err != nil || len(sum) == 0 {
		return nil, err
	}
	stand := make([]*memory.Memory, len(sum))
	for i, bt := range sum {
		stand[i] = &memory.Memory{ID: strconv.Itoa(i), Project: s.Project, Watermarks: []memory.Watermark{
			{Kind: bt.Kind, Target: bt.Target, Fingerprint: bt.Fingerprint, State: bt.State}}}
	}
	changes, err := s.Checker.Check(ctx, stand)
	if err != nil {
		return nil, err
	}
	var moved []string
	for _, c := range changes {
		if w := c.Memory.Watermarks[0]; c.Watermarks[0].State != w.State {
			moved = append(moved, w.Target)
		}
	}
	if len(moved) == 0 {
		return nil, nil
	}
	return s.St.BoundTo(ctx, s.Project, uniqueStrings(moved))
}
