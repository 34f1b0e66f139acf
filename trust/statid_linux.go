package trust

import (
	"io/fs"
	"syscall"
)

// changeTime is a file's inode change time (ns), device and inode number.
func changeTime(fi fs.FileInfo) (ctime int64, dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano(), uint64(st.Dev), st.Ino
	}
	return 0, 0, 0
}
