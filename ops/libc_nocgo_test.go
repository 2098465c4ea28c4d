//go:build !cgo || !(specrun_libc || specrun_cmalloc)

package ops

import (
	"errors"
	"strings"
	"testing"
)

func TestLibcOpsAreListedWithHowToBuildThem(t *testing.T) {
	for _, name := range []string{"c.malloc", "c.time"} {
		def, ok := Lookup(name)
		if !ok {
			t.Fatalf("%s is not in the catalog", name)
		}
		if !strings.HasPrefix(def.Doc, "[not in this build: "+libcBuild+"]") {
			t.Errorf("%s: the doc does not say how to build it: %s", name, def.Doc)
		}
		if errs := def.Validate(withDefaults(def, nil)); len(errs) != 1 || !errors.Is(errs[0], errNoLibc) {
			t.Errorf("%s: Validate = %v, want the build hint", name, errs)
		}
		if _, err := newOp(name, nil, nil); !errors.Is(err, errNoLibc) {
			t.Errorf("%s: New: %v, want the build hint", name, err)
		}
	}
}
