//go:build imagetools

/*
Copyright 2026 The demo-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package tools

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// What a registry holds, read as a container runtime reads it: through the registry's HTTP API,
// so that the tests see the pushed images rather than a tool's local copy.

// manifestTypes are the manifest media types the tools push: Docker's (docker) and OCI's
// (podman, buildah), single images and lists.
var manifestTypes = strings.Join([]string{
	ocispec.MediaTypeImageIndex, ocispec.MediaTypeImageManifest,
	"application/vnd.docker.distribution.manifest.list.v2+json",
	"application/vnd.docker.distribution.manifest.v2+json",
}, ", ")

// registryImage is one image (one platform) in a registry.
type registryImage struct {
	host, repository string
	manifest         ocispec.Manifest
	config           ocispec.Image
}

// fileEntry is a path of an image's file tree, after its layers are applied in order.
type fileEntry struct {
	Type     byte
	Mode     int64
	UID, GID int
	Size     int64
	Link     string
	Digest   string
	ModTime  time.Time
}

// getJSON fetches a manifest or blob of repository from host and decodes it into v.
func getJSON(host, repository, kind, ref string, v any) error {
	body, err := get(host, repository, kind, ref)
	if err != nil {
		return err
	}
	defer body.Close()
	return json.NewDecoder(body).Decode(v)
}

func get(host, repository, kind, ref string) (io.ReadCloser, error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://%s/v2/%s/%s/%s", host, repository, kind, ref), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", manifestTypes)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		_ = res.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", req.URL, res.Status)
	}
	return res.Body, nil
}

// splitRef splits "host/repository:tag".
func splitRef(ref string) (host, repository, tag string) {
	host, rest, _ := strings.Cut(ref, "/")
	i := strings.LastIndex(rest, ":")
	return host, rest[:i], rest[i+1:]
}

// index returns the manifest list ref names.
func index(ref string) (*ocispec.Index, error) {
	host, repository, tag := splitRef(ref)
	var idx ocispec.Index
	if err := getJSON(host, repository, "manifests", tag, &idx); err != nil {
		return nil, err
	}
	if len(idx.Manifests) == 0 {
		return nil, fmt.Errorf("%s is not a manifest list", ref)
	}
	return &idx, nil
}

// image reads the single-platform image ref ("host/repository:tag" or "host/repository@digest"
// for a list's entry).
func image(ref string) (*registryImage, error) {
	var host, repository, tag string
	if name, dgst, ok := strings.Cut(ref, "@"); ok {
		host, repository, _ = splitRef(name + ":")
		tag = dgst
	} else {
		host, repository, tag = splitRef(ref)
	}
	img := &registryImage{host: host, repository: repository}
	if err := getJSON(host, repository, "manifests", tag, &img.manifest); err != nil {
		return nil, err
	}
	if img.manifest.Config.Digest == "" {
		return nil, fmt.Errorf("%s is not a single image", ref)
	}
	if err := getJSON(host, repository, "blobs", img.manifest.Config.Digest.String(), &img.config); err != nil {
		return nil, err
	}
	return img, nil
}

// files applies the image's layers in order and returns its file tree, by path ("/manager");
// with contents, it also returns the bytes of the files it names.
func (img *registryImage) files(contents ...string) (map[string]fileEntry, map[string][]byte, error) {
	tree := map[string]fileEntry{}
	data := map[string][]byte{}
	for _, layer := range img.manifest.Layers {
		if err := img.applyLayer(layer.Digest, tree, data, contents); err != nil {
			return nil, nil, fmt.Errorf("layer %s: %w", layer.Digest, err)
		}
	}
	return tree, data, nil
}

func (img *registryImage) applyLayer(dgst digest.Digest, tree map[string]fileEntry, data map[string][]byte, contents []string) error {
	body, err := get(img.host, img.repository, "blobs", dgst.String())
	if err != nil {
		return err
	}
	defer body.Close()
	gz, err := gzip.NewReader(body)
	if err != nil {
		return err
	}
	r := tar.NewReader(gz)
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean("/" + h.Name)
		dir, base := path.Split(name)
		// Whiteouts (OCI image spec, layer changesets): a deleted path, or an opaque directory.
		if base == ".wh..wh..opq" {
			removeUnder(tree, path.Clean(dir), false)
			continue
		}
		if strings.HasPrefix(base, ".wh.") {
			removeUnder(tree, path.Join(dir, strings.TrimPrefix(base, ".wh.")), true)
			continue
		}
		e := fileEntry{Type: h.Typeflag, Mode: h.Mode & 0o7777, UID: h.Uid, GID: h.Gid, Link: h.Linkname, ModTime: h.ModTime}
		if h.Typeflag == tar.TypeReg {
			hash := sha256.New()
			var w io.Writer = hash
			var content strings.Builder
			want := false
			for _, c := range contents {
				want = want || c == name
			}
			if want {
				w = io.MultiWriter(hash, &content)
			}
			n, err := io.Copy(w, r)
			if err != nil {
				return err
			}
			e.Size, e.Digest = n, hex.EncodeToString(hash.Sum(nil))
			if want {
				data[name] = []byte(content.String())
			}
		}
		tree[name] = e
	}
}

// removeUnder deletes p's descendants from tree, and p itself with self.
func removeUnder(tree map[string]fileEntry, p string, self bool) {
	for name := range tree {
		if strings.HasPrefix(name, strings.TrimSuffix(p, "/")+"/") || (self && name == p) {
			delete(tree, name)
		}
	}
}
