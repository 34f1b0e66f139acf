package cli

import (
	"runtime"
	"runtime/debug"
)

// The build's release and commit, set by the Makefile's build and run
// with -ldflags "-X cairn/cli.release=… -X cairn/cli.commit=…
// -X cairn/cli.modified=true" from git describe and git rev-parse. The
// Makefile sets GOFLAGS=-buildvcs=false (so a checkout without git, or
// git refusing a directory it does not own, still builds), which leaves
// the Go build without a commit of its own: these carry it instead.
var (
	release  string // git describe --tags --dirty: "v0.9.0-3-g06a9289", empty without a tag
	commit   string // the full commit id
	modified string // "true" when the work tree differed from the commit
)

// noCommit is what --version says of a build that recorded no commit.
const noCommit = "no commit recorded — make build records it"

// Version is cairn's release, its commit and the Go that built it:
// "v0.9.0 commit 06a9289f1a2b (go1.27.1 linux/amd64)". The Makefile's
// values come first; else the build's own record (a module version when
// installed with go install, the commit when Go stamped it); else
// "devel" and noCommit.
func Version() string {
	rel, rev, dirty := release, commit, modified == "true"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if mv := bi.Main.Version; rel == "" && mv != "" && mv != "(devel)" {
			rel = mv
		}
		if rev == "" {
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					dirty = s.Value == "true"
				}
			}
		}
	}
	v := rel
	switch {
	case rev != "":
		if v == "" {
			v = "devel"
		}
		v += " commit " + rev[:min(len(rev), 12)]
		if dirty {
			v += "+modified"
		}
	case v == "":
		v = "devel, " + noCommit
	}
	return v + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
