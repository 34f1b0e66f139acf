package trust

import "syscall"

// times is a stat's modification and change times in ns.
func times(st *syscall.Stat_t) (mtime, ctime int64) { return st.Mtimespec.Nano(), st.Ctimespec.Nano() }
