package servertest_test

import (
	"os"
	"strings"
	"testing"
)

func TestReadmeExampleIsThisFile(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := string(self)
	code = code[strings.Index(code, "import ("):]
	if !strings.Contains(string(readme), "```go\n"+code+"```\n") {
		t.Errorf("README.md's example differs from readme_test.go; make them the same")
	}
}
