package transport

import (
	"fmt"
	"regexp"
	"strings"
)

// Semantic-version precedence (semver 2.0 §11), as every client of the service compares versions.

var versionPattern = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$`)

type version struct {
	core       [3]string
	prerelease []string
}

func parseVersion(text string) (version, error) {
	match := versionPattern.FindStringSubmatch(strings.TrimSpace(text))
	if match == nil {
		return version{}, fmt.Errorf("%q is not a version", text)
	}
	v := version{core: [3]string{match[1], match[2], match[3]}}
	if match[4] != "" {
		v.prerelease = strings.Split(match[4], ".")
	}
	return v, nil
}

func isNumeric(part string) bool {
	for _, r := range part {
		if r < '0' || r > '9' {
			return false
		}
	}
	return part != ""
}

// compareNumbers compares two digit strings of any length as numbers.
func compareNumbers(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// compareVersions is negative when a < b, zero when equal, positive when a > b; build metadata is
// ignored.
func compareVersions(a, b version) int {
	for i := range a.core {
		if c := compareNumbers(a.core[i], b.core[i]); c != 0 {
			return c
		}
	}
	if len(a.prerelease) == 0 || len(b.prerelease) == 0 {
		return len(b.prerelease) - len(a.prerelease)
	}
	for i := 0; i < max(len(a.prerelease), len(b.prerelease)); i++ {
		if i >= len(a.prerelease) {
			return -1
		}
		if i >= len(b.prerelease) {
			return 1
		}
		p, q := a.prerelease[i], b.prerelease[i]
		switch {
		case p == q:
			continue
		case isNumeric(p) && isNumeric(q):
			return compareNumbers(p, q)
		case isNumeric(p):
			return -1
		case isNumeric(q):
			return 1
		}
		return strings.Compare(p, q)
	}
	return 0
}

// versionAtLeast reports whether server is since or later (false when either is not a version).
func versionAtLeast(server, since string) bool {
	a, err := parseVersion(server)
	if err != nil {
		return false
	}
	b, err := parseVersion(since)
	if err != nil {
		return false
	}
	return compareVersions(a, b) >= 0
}
