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
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// elfTargets are the ELF machine and byte order of a Go binary built for each GOARCH of
// imagebuild.Platforms.
var elfTargets = map[string]struct {
	machine elf.Machine
	order   binary.ByteOrder
}{
	"amd64":   {elf.EM_X86_64, binary.LittleEndian},
	"arm64":   {elf.EM_AARCH64, binary.LittleEndian},
	"s390x":   {elf.EM_S390, binary.BigEndian},
	"ppc64le": {elf.EM_PPC64, binary.LittleEndian},
}

// lists are the manifest lists the test makes, by the Makefile variable that names them: the
// target that makes it, its programs, which must run on its platform, and its platforms. The
// manager's are PLATFORMS as the Makefile sets it; the catalog's, opm's stand-in's.
var lists = map[string]struct {
	target    string
	programs  []string
	platforms []string
	// make are the variables the target is given beside the image's name.
	make map[string]string
}{
	"IMG": {target: "docker-buildx", programs: []string{"/manager"}, platforms: imagebuild.Platforms},
	"CATALOG_IMG": {
		target:    "catalog-buildx",
		programs:  []string{"/bin/opm", "/bin/grpc_health_probe"},
		platforms: imagebuild.OPMPlatforms,
		make:      map[string]string{"PLATFORMS": strings.Join(imagebuild.OPMPlatforms, ",")},
	},
}

func TestBuildxMakesManifestLists(t *testing.T) {
	requireCommands(t, "make", "podman", "docker-registry", "qemu-aarch64-static")
	root := testenv.Root()
	registry := startRegistry(t)
	ensureBaseImages(t, root)

	for _, tool := range []string{"buildah", "podman"} {
		t.Run(tool, func(t *testing.T) {
			vars := map[string]string{"CONTAINER_TOOL": tool, "INSECURE_REGISTRY": "true", "BUILD_FLAGS": buildFlags(t, tool)}
			for v := range lists {
				vars[v] = fmt.Sprintf("%s/%s/%s:multiarch", registry.Host, tool, imageNames[v])
			}
			t.Cleanup(func() { removeLocal(t, vars["IMG"], vars["CATALOG_IMG"]) })
			for _, v := range slices.Sorted(maps.Keys(lists)) {
				l := lists[v]
				listVars := maps.Clone(vars)
				maps.Copy(listVars, l.make)
				took := makeImages(t, os.Environ(), []string{l.target}, listVars)
				t.Logf("make %s: %v in %s", l.target, l.platforms, took.Round(1e9))
			}

			for v, l := range lists {
				g := NewWithT(t)
				idx, err := index(vars[v])
				g.Expect(err).NotTo(HaveOccurred())
				var platforms []string
				for _, m := range idx.Manifests {
					g.Expect(m.Platform).NotTo(BeNil(), "%s: every image of the list names its platform", vars[v])
					platform := m.Platform.OS + "/" + m.Platform.Architecture
					platforms = append(platforms, platform)

					host, repository, _ := splitRef(vars[v])
					img, err := image(host + "/" + repository + "@" + m.Digest.String())
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(img.config.OS+"/"+img.config.Architecture).To(Equal(platform), "the configuration of %s's %s image", vars[v], platform)
					files, contents, err := img.files(l.programs...)
					g.Expect(err).NotTo(HaveOccurred())
					t.Logf("%s %s: %s compressed, %s unpacked", imageNames[v], platform, imagebuild.HumanSize(img.compressedSize()), imagebuild.HumanSize(unpackedSize(files)))
					for _, program := range l.programs {
						g.Expect(contents).To(HaveKey(program), "%s's %s image has %s", vars[v], platform, program)
						g.Expect(checkELF(contents[program], m.Platform.Architecture)).To(Succeed(), "%s in %s's %s image", program, vars[v], platform)
					}
					if m.Platform.Architecture == "arm64" {
						runEmulated(t, l.programs[0], contents[l.programs[0]])
					}
				}
				g.Expect(platforms).To(ConsistOf(l.platforms), vars[v])
			}

			if tool == "podman" {
				removeLocal(t, vars["IMG"], vars["CATALOG_IMG"])
				validateMultiArch(t, registry.Host, vars["IMG"])
			}
		})
	}
}

// validateMultiArch runs operator-framework/api's multiarch validator, what `operator-sdk bundle
// validate --select-optional name=multiarch` runs, on bundle/ with the manager's image, wherever
// the CSV names it, replaced by the manifest list manager: it pulls the list with podman and compares its platforms with
// the CSV's operatorframework.io/arch and os labels and with the manager's node affinity.
func validateMultiArch(t *testing.T, registryHost, manager string) {
	g := NewWithT(t)
	// The registry is plain HTTP; podman reads that from registries.conf.
	conf := filepath.Join(t.TempDir(), "registries.conf")
	g.Expect(os.WriteFile(conf, fmt.Appendf(nil, "[[registry]]\nlocation = %q\ninsecure = true\n", registryHost), 0o644)).To(Succeed())
	t.Setenv("CONTAINERS_REGISTRIES_CONF", conf)
	t.Cleanup(func() { removeLocal(t, manager) })

	bundle, err := manifests.GetBundleFromDir(filepath.Join(testenv.Root(), "bundle"))
	g.Expect(err).NotTo(HaveOccurred())
	deployments := bundle.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	g.Expect(deployments).To(HaveLen(1))
	containers := deployments[0].Spec.Template.Spec.Containers
	g.Expect(containers).To(HaveLen(1))
	containers[0].Image = manager
	// The validator inspects every image the CSV names: its containerImage annotation and
	// relatedImages name the manager too.
	bundle.CSV.Annotations["containerImage"] = manager
	g.Expect(bundle.CSV.Spec.RelatedImages).To(HaveLen(1))
	bundle.CSV.Spec.RelatedImages[0].Image = manager

	for _, result := range validation.MultipleArchitecturesValidator.Validate(bundle, map[string]string{"container-tools": "podman"}) {
		g.Expect(result.Errors).To(BeEmpty())
		g.Expect(result.Warnings).To(BeEmpty())
	}
}

// checkELF returns nil when data is a static executable for GOARCH arch.
func checkELF(data []byte, arch string) error {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer f.Close()
	want := elfTargets[arch]
	if f.Machine != want.machine || f.ByteOrder != want.order || f.Class != elf.ELFCLASS64 {
		return fmt.Errorf("built for %s %s %s, not %s", f.Class, f.Machine, f.ByteOrder, arch)
	}
	if f.Type != elf.ET_EXEC {
		return fmt.Errorf("an ELF %s, not an executable", f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("dynamically linked")
		}
	}
	return nil
}

// runEmulated runs an arm64 program with --help (the manager) or version (opm) under Debian's
// qemu-aarch64-static, directly: no binfmt registration, nothing changed on the machine.
func runEmulated(t *testing.T, program string, data []byte) {
	g := NewWithT(t)
	file := filepath.Join(t.TempDir(), path.Base(program))
	g.Expect(os.WriteFile(file, data, 0o755)).To(Succeed())
	args, want := []string{"--help"}, "-leader-elect"
	if path.Base(program) == "opm" {
		args, want = []string{"version"}, "OpmVersion"
	}
	out, err := exec.Command("qemu-aarch64-static", append([]string{file}, args...)...).CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "qemu-aarch64-static %s %v:\n%s", program, args, out)
	g.Expect(string(out)).To(ContainSubstring(want), "the arm64 %s runs under qemu", program)
}
