// Command image builds nodepilot's multi-platform container image without Docker: it builds a
// static binary for each platform (CGO_ENABLED=0, -trimpath, stripped, without Kustomize's Go
// plugin loader), puts them in an OCI image index (package image) and writes it as an OCI image
// layout, then prints each platform's digest and compressed size and the index's digest.
//
//	go run ./hack/image [-out bin/image] [-version V] [-revision SHA] [-platforms linux/amd64,linux/arm64]
//
// make image runs it. SOURCE_DATE_EPOCH, if set, is the image's created time (make image sets
// the commit's); otherwise the Unix epoch: either way the same sources give the same digest.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/nodepilot/nodepilot/image"
)

func main() {
	out := flag.String("out", "bin/image", "directory of the OCI image layout (replaced)")
	version := flag.String("version", "dev", "the image's version label and ref name (make image: git describe --always --dirty)")
	revision := flag.String("revision", "", "the image's revision label: the source's commit")
	platforms := flag.String("platforms", image.DefaultPlatforms, "comma-separated platforms to build for")
	ca := flag.String("ca", image.DefaultCACertificates, "PEM bundle of CA certificates copied into the image")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *out, *version, *revision, *platforms, *ca, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, version, revision, platformList, ca string, w io.Writer) error {
	platforms, err := image.ParsePlatforms(platformList)
	if err != nil {
		return fmt.Errorf("-platforms: %w", err)
	}
	created, err := sourceDate()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "nodepilot-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	opts := image.Options{CACertificates: ca, Version: version, Revision: revision, Created: created}
	for _, p := range platforms {
		bin, err := goBuild(ctx, tmp, p, w)
		if err != nil {
			return err
		}
		opts.Binaries = append(opts.Binaries, image.PlatformBinary{Platform: p, Path: bin})
	}
	idx, err := image.Build(ctx, opts)
	if err != nil {
		return err
	}
	if err := image.Write(out, idx, version); err != nil {
		return err
	}
	return report(w, idx, out, version)
}

// sourceDate is the time SOURCE_DATE_EPOCH says (reproducible-builds.org's convention), or zero.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970 (git log -1 --format=%%ct)", s)
	}
	return time.Unix(sec, 0), nil
}

// goBuild builds nodepilot for a platform into dir and prints one line when done.
func goBuild(ctx context.Context, dir, platform string, w io.Writer) (string, error) {
	goos, goarch, _ := strings.Cut(platform, "/")
	bin := filepath.Join(dir, goos+"-"+goarch, "nodepilot")
	start := time.Now()
	// The Makefile's tag (see its GOFLAGS), and no symbol table or DWARF, which a container
	// never reads.
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-tags=kustomize_disable_go_plugin_support",
		"-ldflags=-s -w", "-o", bin, "github.com/nodepilot/nodepilot")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w", platform, err)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(w, "go build %s: %s in %s\n", platform, mib(fi.Size()), time.Since(start).Round(time.Second))
	return bin, nil
}

// report prints each platform's image digest and compressed size (what a node pulls: its
// layers and config), then the index's digest, the one to deploy by.
func report(w io.Writer, idx v1.ImageIndex, out, ref string) error {
	m, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, d := range m.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		im, err := img.Manifest()
		if err != nil {
			return err
		}
		size := im.Config.Size
		for _, l := range im.Layers {
			size += l.Size
		}
		fmt.Fprintf(w, "%-12s %s  %s compressed\n", d.Platform.OS+"/"+d.Platform.Architecture, d.Digest, mib(size))
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-12s %s  OCI image layout %s, ref %s\n", "index", digest, out, ref)
	fmt.Fprintf(w, "push it: crane push %s REPOSITORY:%s, or skopeo copy --all oci:%s:%s docker://REPOSITORY:%s\n", out, ref, out, ref, ref)
	return nil
}

func mib(n int64) string {
	return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
}
