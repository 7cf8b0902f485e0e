// Package userfile owns reading files whose paths a user gave (manifests, skins, the config
// file) without letting the path hang or exhaust the process: only regular files are read
// (a device, FIFO or socket, directly or through a symlink, is refused before it is opened for
// reading, so a FIFO never blocks), and at most MaxSize bytes.
package userfile
