package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"cairn/memory"
	"cairn/safetext"
)

// memFlags are the flags that describe a memory's content, shared by
// remember, edit and supersede.
type memFlags struct {
	layer, kind, title, provenance, ref string
	confidence                          float64
	tags, binds, triggers               []string
}

func (f *memFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.layer, "layer", "l", "", "layer: A-F or "+strings.Join(memory.LayerNames(), ", "))
	fs.StringVarP(&f.kind, "kind", "k", "", "kind: "+strings.Join(memory.KindNames(), ", "))
	fs.StringVarP(&f.title, "title", "t", "", "one-line title (default: the first line of the text)")
	fs.StringSliceVar(&f.tags, "tag", nil, "tag (repeat or separate with commas)")
	fs.StringVarP(&f.provenance, "provenance", "p", "", "how it is known: "+strings.Join(memory.ProvenanceNames(), ", "))
	fs.Float64Var(&f.confidence, "confidence", 0, "base confidence 0..1 (default: from provenance)")
	fs.StringArrayVar(&f.binds, "bind", nil, "watermark: file:PATH, git:SCOPE, flag:NAME or none (repeatable)")
	fs.StringVar(&f.ref, "ref", "", "your own reference for this memory, unique in the project")
	fs.StringArrayVar(&f.triggers, "trigger", nil, "pattern that should surface this memory (negatives; repeatable): words (by stem), a glob (*.sql), or /a regexp/")
}

// parsed holds flag values after validation.
type parsed struct {
	layer      memory.Layer
	kind       memory.Kind
	provenance memory.Provenance
	watermarks []memory.Watermark
}

func (f *memFlags) parse(fs *pflag.FlagSet) (parsed, error) {
	var p parsed
	var err error
	if fs.Changed("layer") {
		if p.layer, err = memory.ParseLayer(f.layer); err != nil {
			return p, usage(err)
		}
	}
	if fs.Changed("kind") {
		if p.kind, err = memory.ParseKind(f.kind); err != nil {
			return p, usage(err)
		}
	}
	if fs.Changed("provenance") {
		if p.provenance, err = memory.ParseProvenance(f.provenance); err != nil {
			return p, usage(err)
		}
	}
	if fs.Changed("confidence") && (math.IsNaN(f.confidence) || f.confidence <= 0 || f.confidence > 1) {
		return p, usagef("--confidence %v out of range: use a number above 0 and at most 1", f.confidence)
	}
	// Short fields are checked here as well as by the store: on the way to
	// a store server they are JSON-encoded, which would silently replace
	// invalid UTF-8 before the server could refuse it.
	if err := safetext.Check("title", f.title); err != nil {
		return p, usage(err)
	}
	if err := safetext.Check("ref", f.ref); err != nil {
		return p, usage(err)
	}
	for _, t := range f.tags {
		if err := safetext.Check("tag", t); err != nil {
			return p, usage(err)
		}
	}
	for _, t := range f.triggers {
		if err := safetext.Check("trigger", t); err != nil {
			return p, usage(err)
		}
		if err := memory.ValidTrigger(t); err != nil {
			return p, usage(err)
		}
	}
	for _, b := range f.binds {
		w, err := memory.ParseBinding(b)
		if err != nil {
			return p, usage(err)
		}
		p.watermarks = append(p.watermarks, w)
	}
	if len(p.watermarks) > 1 {
		for _, w := range p.watermarks {
			if w.Kind == memory.WatermarkNone {
				return p, usagef("--bind none cannot be combined with other bindings")
			}
		}
	}
	return p, nil
}

// newMemory builds a memory from flags and text for remember and supersede.
func (f *memFlags) newMemory(fs *pflag.FlagSet, body string) (*memory.Memory, error) {
	p, err := f.parse(fs)
	if err != nil {
		return nil, err
	}
	m := &memory.Memory{
		Layer: p.layer, Kind: p.kind, Title: f.title, Body: body, Provenance: p.provenance,
		Ref: f.ref, Watermarks: p.watermarks,
	}
	if fs.Changed("tag") {
		m.Tags = memory.NormalizeTags(f.tags)
	}
	if fs.Changed("trigger") {
		m.Triggers = f.triggers
	}
	if fs.Changed("confidence") {
		m.Confidence = f.confidence
	}
	return m, nil
}

// patch builds an in-place edit from the flags that were given.
func (f *memFlags) patch(fs *pflag.FlagSet, body *string) (memory.Patch, error) {
	p, err := f.parse(fs)
	if err != nil {
		return memory.Patch{}, err
	}
	var pt memory.Patch
	pt.Body = body
	if fs.Changed("title") {
		pt.Title = &f.title
	}
	if fs.Changed("layer") {
		pt.Layer = &p.layer
	}
	if fs.Changed("kind") {
		pt.Kind = &p.kind
	}
	if fs.Changed("provenance") {
		pt.Provenance = &p.provenance
	}
	if fs.Changed("confidence") {
		pt.Confidence = &f.confidence
	}
	if fs.Changed("tag") {
		t := memory.NormalizeTags(f.tags)
		pt.Tags = &t
	}
	if fs.Changed("bind") {
		pt.Watermarks = &p.watermarks
	}
	if fs.Changed("ref") {
		pt.Ref = &f.ref
	}
	if fs.Changed("trigger") {
		pt.Triggers = &f.triggers
	}
	return pt, nil
}

// readText returns the memory text: the argument, or standard input for "-".
func readText(cmd *cobra.Command, args []string) (string, bool, error) {
	if len(args) == 0 {
		return "", false, nil
	}
	if args[0] != "-" {
		// Refused here, not replaced on the way to the store (see parse).
		if err := safetext.Valid("text", args[0]); err != nil {
			return "", false, usage(err)
		}
		return args[0], true, nil
	}
	b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), memory.MaxBody+1))
	if err != nil {
		return "", false, fmt.Errorf("read standard input: %w", err)
	}
	if len(b) > memory.MaxBody {
		return "", false, usagef("standard input is over %d bytes: split it into several memories", memory.MaxBody)
	}
	if err := safetext.Valid("standard input", string(b)); err != nil {
		return "", false, usage(err)
	}
	return string(b), true, nil
}
