package remote

import (
	"net"
	"syscall"
)

// peerCred is the user and process at the other end of a Unix socket, as
// the kernel recorded them when it connected (or, for a server, listened).
func peerCred(c net.Conn) (uid, pid int, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, 0, errNotUnix
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *syscall.Ucred
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		cred, gerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if gerr != nil {
		return -1, 0, gerr
	}
	return int(cred.Uid), int(cred.Pid), nil
}
