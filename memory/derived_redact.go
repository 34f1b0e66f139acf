package memory

import "cairn/secrets"

// Derived memory is what the repository says, and a file is what it is:
// a key in a README or a token in a Makefile is no reason to refuse the
// rest of it. So every text derived memory keeps is redacted instead —
// by the reader before anything is cut or summed up from it, and again
// by the store before anything is written (a remote client's update
// included). A secret never reaches the store.

// redactText is s with every secret in it replaced by a marker.
func redactText(s string) string {
	if s == "" {
		return s
	}
	r, _ := secrets.Redact(s)
	return r
}

func redactAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = redactText(s)
	}
	return out
}

// Redacted is the section with the secrets in its name, signature and
// doc replaced by markers.
func (s Section) Redacted() Section {
	s.Name, s.Signature, s.Doc = redactText(s.Name), redactText(s.Signature), redactText(s.Doc)
	return s
}

// Redacted is the outline with the secrets in its names and lead replaced.
func (o Outline) Redacted() Outline {
	o.Exported = redactAll(o.Exported)
	o.Lead = redactText(o.Lead)
	if o.Methods != nil {
		m := make(map[string]int, len(o.Methods))
		for k, v := range o.Methods {
			m[redactText(k)] += v
		}
		o.Methods = m
	}
	return o
}

// Redacted is the file's record with every text in it redacted.
func (f DerivedFile) Redacted() DerivedFile {
	secs := make([]Section, len(f.Sections))
	for i, s := range f.Sections {
		secs[i] = s.Redacted()
	}
	f.Sections = secs
	f.Exported = redactAll(f.Exported)
	f.Outline = f.Outline.Redacted()
	return f
}

// Redacted is the facts with every text a manifest, a Makefile or a CI
// file gave them redacted: names, versions (a dependency's URL may carry
// a token), commands and their recipes.
func (f Facts) Redacted() Facts {
	f.Name, f.Module = redactText(f.Name), redactText(f.Module)
	f.Title, f.Purpose = redactText(f.Title), redactText(f.Purpose)
	if f.Dependencies != nil {
		deps := make([]Dependency, len(f.Dependencies))
		for i, d := range f.Dependencies {
			deps[i] = Dependency{Name: redactText(d.Name), Version: redactText(d.Version), Source: redactText(d.Source)}
		}
		f.Dependencies = deps
	}
	if f.Commands != nil {
		cmds := make([]Command, len(f.Commands))
		for i, c := range f.Commands {
			cmds[i] = Command{Name: redactText(c.Name), Run: redactText(c.Run), Recipe: redactText(c.Recipe), Source: redactText(c.Source)}
		}
		f.Commands = cmds
	}
	f.EntryPoints = redactAll(f.EntryPoints)
	return f
}

// Redacted is the summary with every text in it redacted: its facts, its
// modules' names and summaries, its brief.
func (s RepoSummary) Redacted() RepoSummary {
	s.Facts = s.Facts.Redacted()
	if s.Modules != nil {
		mods := make([]Module, len(s.Modules))
		for i, m := range s.Modules {
			m.Exported = redactAll(m.Exported)
			m.Summary = redactText(m.Summary)
			mods[i] = m
		}
		s.Modules = mods
	}
	s.Brief = redactText(s.Brief)
	s.Excludes = redactAll(s.Excludes)
	return s
}
