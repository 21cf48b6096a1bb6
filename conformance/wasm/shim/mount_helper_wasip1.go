//go:build wasip1

// Replaces k8s.io/mount-utils' mount_helper_unix.go in the wasip1 build (go build -overlay, see
// ../build.sh): Go counts wasip1 as "unix", but that file needs syscalls wasip1 lacks (access,
// uname, EHOSTDOWN). Only what the package's other files compiled for wasip1 call is declared.
// Nothing in the decode path mounts anything, and in WebAssembly nothing is mounted.

package mount

import (
	"errors"
	"io/fs"
	"os"
)

// IsCorruptedMnt: no mount is ever corrupted where there are none.
func IsCorruptedMnt(err error) bool { return false }

// PathExists as os.Stat says.
func PathExists(path string) (bool, error) {
	_, err := os.Stat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// isMountPointMatch: the path itself (there is no stale NFS mount to rename it).
func isMountPointMatch(mp MountPoint, dir string) bool { return mp.Path == dir }
