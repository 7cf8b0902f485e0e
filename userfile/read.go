package userfile

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxSize is the largest file Read accepts: far above any manifest or skin, far below what
// could exhaust memory.
const MaxSize = 32 << 20

// Read returns the contents of the regular file at path (symlinks followed). It refuses other
// kinds of files and files larger than MaxSize with an error naming the path and the fix.
// A missing file's error wraps fs.ErrNotExist.
func Read(path string) ([]byte, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should path be swapped for a FIFO after the Stat, opening it still returns.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, info); err != nil {
		return nil, err
	}
	// Reading cap+1 bytes tells a file of exactly MaxSize from one that grew past it.
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, tooLarge(path)
	}
	return data, nil
}

// Check returns the error Read would give before reading: the path is missing (wrapping
// fs.ErrNotExist), not a regular file, or larger than MaxSize. It is for files another library
// reads, such as a kubeconfig, which client-go would open and block on were it a FIFO.
func Check(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return checkRegular(path, info)
}

// checkRegular refuses what is not a regular file, and regular files already over MaxSize.
func checkRegular(path string, info os.FileInfo) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): give the path of a regular file", path, kind(info.Mode()))
	}
	if info.Size() > MaxSize {
		return tooLarge(path)
	}
	return nil
}

func tooLarge(path string) error {
	return fmt.Errorf("%s is larger than %d MiB: split it into smaller files", path, MaxSize>>20)
}

// kind names a non-regular file's type for messages.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not regular: " + m.Type().String()
}
