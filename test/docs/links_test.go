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

// Package docs_test checks the repository's Markdown: every relative link names a file that
// exists and, when it has one, an anchor that a heading of that file makes (GitHub's slugs),
// and every page is reachable from README.md.
package docs_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// skipDirs are the folders below the root whose Markdown is not the repository's own: build
// output, downloaded tools, dependencies.
var skipDirs = []string{".git", "bin", "dist", "vendor", "node_modules", "testdata"}

var (
	// linkRE matches an inline link or image, [text](target) or [text](target "title").
	linkRE = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// codeSpanRE matches an inline code span, whose brackets are not links.
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	// headingRE matches an ATX heading and captures its text.
	headingRE = regexp.MustCompile(`^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$`)
	// schemeRE matches a target with a scheme (https:, mailto:): not a relative link.
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// inlineLinkRE matches a link in a heading, whose anchor keeps only its text.
	inlineLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// link is a relative link of a page: the line it is on, its target's path (slash-separated,
// from the root; the page itself when the link is an anchor alone) and its anchor.
type link struct {
	line         int
	target       string
	anchor, text string
}

// page is a Markdown file: the anchors its headings make and its relative links.
type page struct {
	anchors map[string]bool
	links   []link
}

// TestLinksResolve fails for every relative link whose file does not exist, or whose anchor
// no heading of that file makes.
func TestLinksResolve(t *testing.T) {
	g := NewWithT(t)
	root := testenv.Root()
	pages := readPages(t, root)
	g.Expect(pages).To(HaveKey("README.md"))

	var broken []string
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		for _, l := range pages[name].links {
			where := fmt.Sprintf("%s:%d: %s", name, l.line, l.text)
			info, err := os.Stat(filepath.Join(root, filepath.FromSlash(l.target)))
			if err != nil {
				broken = append(broken, where+": no such file "+l.target)
				continue
			}
			if l.anchor == "" {
				continue
			}
			target, ok := pages[l.target]
			switch {
			case info.IsDir() || !strings.HasSuffix(l.target, ".md"):
				broken = append(broken, where+": an anchor on a file that is not Markdown")
			case !ok:
				broken = append(broken, where+": an anchor on a page this test does not read")
			case !target.anchors[l.anchor]:
				broken = append(broken, where+": no heading of "+l.target+" makes the anchor #"+l.anchor)
			}
		}
	}
	g.Expect(broken).To(BeEmpty(), "broken links:\n%s", strings.Join(broken, "\n"))
}

// TestEveryPageReachable fails for a page no chain of relative links from README.md reaches.
func TestEveryPageReachable(t *testing.T) {
	g := NewWithT(t)
	root := testenv.Root()
	pages := readPages(t, root)

	seen := map[string]bool{"README.md": true}
	todo := []string{"README.md"}
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, l := range pages[name].links {
			target := l.target
			if _, ok := pages[target]; !ok {
				target = path.Join(target, "README.md") // a link to a folder shows its README
			}
			if _, ok := pages[target]; ok && !seen[target] {
				seen[target] = true
				todo = append(todo, target)
			}
		}
	}
	var unreachable []string
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		if !seen[name] {
			unreachable = append(unreachable, name)
		}
	}
	g.Expect(unreachable).To(BeEmpty(), "pages no link from README.md leads to")
}

// TestSlug pins the anchors GitHub makes of headings.
func TestSlug(t *testing.T) {
	g := NewWithT(t)
	g.Expect(slug("The two commands")).To(Equal("the-two-commands"))
	g.Expect(slug("First run: `make demo`")).To(Equal("first-run-make-demo"))
	g.Expect(slug("By hand on the real node: `make olm-up`")).To(Equal("by-hand-on-the-real-node-make-olm-up"))
	g.Expect(slug("What DemoApplications may ask for: the platform's policy")).To(Equal("what-demoapplications-may-ask-for-the-platforms-policy"))
	g.Expect(slug("docker, podman, buildah")).To(Equal("docker-podman-buildah"))
	g.Expect(slug("snake_case and kebab-case")).To(Equal("snake_case-and-kebab-case"))
	g.Expect(slug("A [linked](x.md) heading")).To(Equal("a-linked-heading"))

	p := parse("x.md", "# A\n## A\n```sh\n# A\n```\n## A\n")
	g.Expect(p.anchors).To(Equal(map[string]bool{"a": true, "a-1": true, "a-2": true}), "duplicates get -1, -2; fenced lines are no headings")
}

// readPages reads every Markdown file below root but skipDirs, keyed by its slash-separated
// path from root.
func readPages(t *testing.T, root string) map[string]*page {
	t.Helper()
	pages := map[string]*page{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (slices.Contains(skipDirs, d.Name()) || slices.Contains(skipDirs, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pages[rel] = parse(rel, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// parse reads a page's headings and relative links, outside fenced code blocks and code spans.
func parse(name, text string) *page {
	p := &page{anchors: map[string]bool{}}
	counts := map[string]int{}
	fenced := false
	scanner := bufio.NewScanner(strings.NewReader(text))
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		if trimmed := strings.TrimLeft(line, " "); strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			s := slug(m[1])
			anchor := s
			if c := counts[s]; c > 0 {
				anchor = fmt.Sprintf("%s-%d", s, c)
			}
			counts[s]++
			p.anchors[anchor] = true
		}
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if schemeRE.MatchString(target) {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			resolved := name
			if file != "" {
				resolved = path.Clean(path.Join(path.Dir(name), file))
			}
			p.links = append(p.links, link{line: n, target: resolved, anchor: anchor, text: m[0]})
		}
	}
	return p
}

// slug is the anchor GitHub makes of a heading: its text lowercased, links reduced to their
// text, backticks and punctuation other than '-' and '_' dropped, spaces turned into '-'.
func slug(heading string) string {
	heading = inlineLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
