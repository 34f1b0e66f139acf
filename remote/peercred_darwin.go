package remote

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerCred is the user at the other end of a Unix socket (LOCAL_PEERCRED);
// macOS does not report the process here.
func peerCred(c net.Conn) (uid, pid int, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, 0, errNotUnix
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Xucred
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		cred, gerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if gerr != nil {
		return -1, 0, gerr
	}
	return int(cred.Uid), 0, nil
}
