//go:build linux || darwin

package trust

import (
	"io/fs"
	"syscall"
)

// changeTime is a file's inode change time (ns), device and inode number.
func changeTime(fi fs.FileInfo) (ctime int64, dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		_, ctime := times(st)
		return ctime, uint64(st.Dev), st.Ino
	}
	return 0, 0, 0
}

// statFile is what a stat of p says (links followed), and whether it is a
// regular file, without the allocations of os.Stat: a wake check stats
// every bound file.
func statFile(p string) (id fileID, regular bool, err error) {
	var st syscall.Stat_t
	for {
		err = syscall.Stat(p, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return fileID{}, false, err
	}
	mtime, ctime := times(&st)
	id = fileID{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: mtime, ctime: ctime}
	return id, st.Mode&syscall.S_IFMT == syscall.S_IFREG, nil
}
