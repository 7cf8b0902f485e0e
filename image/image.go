// Package image builds nodepilot's container image without Docker or a registry: an OCI image
// index with one image per platform, each an empty base plus one layer holding the static binary
// at /nodepilot and the few files a non-root container with a read-only root filesystem needs
// (passwd and group entries for uid and gid 65532, /tmp, the CA certificates). Every time in it
// is fixed, so the same binaries and options give the same digest.
package image

import (
	"archive/tar"
	"bytes"
	"cmp"
	"context"
	"crypto/x509"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// UID is the user and group the container runs as: distroless's "nonroot", a fixed number
	// so that a Pod's runAsNonRoot can check it without reading /etc/passwd.
	UID = 65532
	// DefaultPlatforms are the architectures EKS nodes run.
	DefaultPlatforms = "linux/amd64,linux/arm64"
	// DefaultCACertificates is the build machine's PEM bundle (Debian's, Ubuntu's, Alpine's
	// path), copied into the image at the same path: the first file Go's crypto/x509 reads on
	// Linux, so the binary trusts AWS's endpoints and the API server without SSL_CERT_FILE.
	DefaultCACertificates = "/etc/ssl/certs/ca-certificates.crt"
	// Source is the repository the image's labels point at.
	Source = "https://github.com/nodepilot/nodepilot"
	// Binary is where the binary sits in the image.
	Binary = "/nodepilot"
)

// Options say what goes into the image.
type Options struct {
	// Binaries are nodepilot built for each platform, in the index's order.
	Binaries []PlatformBinary
	// CACertificates is the PEM bundle copied to DefaultCACertificates in the image
	// (default: DefaultCACertificates on this machine).
	CACertificates string
	// Version and Revision fill the OCI version and revision labels; Version defaults to "dev".
	Version, Revision string
	// Created stamps the config, its history and every file (default: the Unix epoch): a fixed
	// time, so that building twice gives the same digest.
	Created time.Time
}

// PlatformBinary is nodepilot built for one platform.
type PlatformBinary struct {
	// Platform is "linux/amd64" or "linux/arm64".
	Platform string
	// Path is the static binary's path on this machine.
	Path string
}

// ParsePlatforms reads a comma-separated list of platforms such as DefaultPlatforms.
func ParsePlatforms(list string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if _, err := machine(p); err != nil {
			return nil, err
		}
		if slices.Contains(out, p) {
			return nil, fmt.Errorf("platform %q given twice", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// machine is the ELF machine a platform's binary is built for.
func machine(platform string) (elf.Machine, error) {
	switch platform {
	case "linux/amd64":
		return elf.EM_X86_64, nil
	case "linux/arm64":
		return elf.EM_AARCH64, nil
	}
	return 0, fmt.Errorf("platform %q: not one nodepilot's image is built for: use linux/amd64 or linux/arm64", platform)
}

// Build returns the image index: one image per binary, each with its platform in the index.
func Build(ctx context.Context, opts Options) (v1.ImageIndex, error) {
	if len(opts.Binaries) == 0 {
		return nil, errors.New("image: no binary: give one per platform")
	}
	ca, err := caCertificates(cmp.Or(opts.CACertificates, DefaultCACertificates))
	if err != nil {
		return nil, err
	}
	created := opts.Created
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	created = created.UTC()
	labels := map[string]string{
		"org.opencontainers.image.source":  Source,
		"org.opencontainers.image.title":   "nodepilot",
		"org.opencontainers.image.version": cmp.Or(opts.Version, "dev"),
		"org.opencontainers.image.created": created.Format(time.RFC3339),
	}
	if opts.Revision != "" {
		labels["org.opencontainers.image.revision"] = opts.Revision
	}
	var adds []mutate.IndexAddendum
	seen := map[string]bool{}
	for _, b := range opts.Binaries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if seen[b.Platform] {
			return nil, fmt.Errorf("image: platform %q given twice", b.Platform)
		}
		seen[b.Platform] = true
		img, err := platformImage(b, ca, created, labels)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", b.Platform, err)
		}
		osName, arch, _ := strings.Cut(b.Platform, "/")
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: osName, Architecture: arch},
		}})
	}
	// The index carries the labels too: registries show an index's annotations, not its images'.
	return mutate.Annotations(mutate.AppendManifests(empty.Index, adds...), labels).(v1.ImageIndex), nil
}

// platformImage is the image of one platform's binary.
func platformImage(b PlatformBinary, ca []byte, created time.Time, labels map[string]string) (v1.Image, error) {
	want, err := machine(b.Platform)
	if err != nil {
		return nil, err
	}
	bin, err := os.ReadFile(b.Path)
	if err != nil {
		return nil, fmt.Errorf("binary: %w", err)
	}
	if err := checkBinary(bin, want, b.Platform); err != nil {
		return nil, fmt.Errorf("binary %s: %w", b.Path, err)
	}
	files, err := rootFS(bin, ca, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: created}, CreatedBy: "go run ./hack/image",
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, _ = strings.Cut(b.Platform, "/")
	cf.Created = v1.Time{Time: created}
	// No Env: Go finds the CA bundle at DefaultCACertificates without SSL_CERT_FILE, and the
	// container runtime sets HOME from /etc/passwd.
	cf.Config = v1.Config{
		Entrypoint: []string{Binary},
		Cmd:        []string{"controller"},
		User:       strconv.Itoa(UID) + ":" + strconv.Itoa(UID),
		WorkingDir: "/",
		Labels:     labels,
	}
	return mutate.ConfigFile(img, cf)
}

// checkBinary refuses what would not start on the platform from an empty base: another
// architecture's binary, or one that needs a C library the image lacks.
func checkBinary(bin []byte, want elf.Machine, platform string) error {
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return fmt.Errorf("not a Linux executable (ELF): %w", err)
	}
	defer f.Close()
	if f.Machine != want {
		osName, arch, _ := strings.Cut(platform, "/")
		return fmt.Errorf("built for %s, not %s: build it with GOOS=%s GOARCH=%s", f.Machine, platform, osName, arch)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("dynamically linked, and the image has no C library: build it with CGO_ENABLED=0")
		}
	}
	return nil
}

// caCertificates reads the PEM bundle the image's binary verifies TLS with: an image without
// one could not reach AWS or the API server, so its absence fails the build.
func caCertificates(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("CA certificates %s: not found: install them (apt-get install ca-certificates) or give another PEM bundle", path)
	}
	if err != nil {
		return nil, fmt.Errorf("CA certificates: %w", err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("CA certificates %s: no PEM certificate in it", path)
	}
	return data, nil
}

// rootFS is the layer's tar: the binary and what a non-root container needs, in a fixed order
// with fixed times.
func rootFS(bin, ca []byte, created time.Time) ([]byte, error) {
	nonroot := strconv.Itoa(UID)
	entries := []struct {
		name     string
		mode     int64
		uid      int
		contents []byte
	}{
		{name: "etc/", mode: 0o755},
		// Distroless's accounts: the runtime resolves the user, and HOME, from these.
		{name: "etc/group", mode: 0o644, contents: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:" + nonroot + ":\n")},
		{name: "etc/passwd", mode: 0o644, contents: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"nonroot:x:" + nonroot + ":" + nonroot + ":nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: strings.TrimPrefix(DefaultCACertificates, "/"), mode: 0o644, contents: ca},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: UID},
		{name: strings.TrimPrefix(Binary, "/"), mode: 0o755, contents: bin},
		// A world-writable sticky /tmp, as on any Linux, for an emptyDir mounted over it when
		// the root filesystem is read-only.
		{name: "tmp/", mode: 0o1777},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: created, Format: tar.FormatPAX}
		if strings.HasSuffix(e.name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.contents))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("layer %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.contents); err != nil {
			return nil, fmt.Errorf("layer %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return buf.Bytes(), nil
}

// Write writes the index as an OCI image layout at dir, replacing one written there before;
// index.json names it ref (org.opencontainers.image.ref.name), so that copying tools can
// address it as oci:DIR:REF.
func Write(dir string, idx v1.ImageIndex, ref string) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
			return fmt.Errorf("%s holds files but no OCI image layout: refusing to replace it: choose a new or empty directory", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("image layout %s: %w", dir, err)
	}
	ann := map[string]string{"org.opencontainers.image.ref.name": ref}
	if err := p.AppendIndex(idx, layout.WithAnnotations(ann)); err != nil {
		return fmt.Errorf("image layout %s: %w", dir, err)
	}
	return nil
}
