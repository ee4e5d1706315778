package routes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// openapi.json describes every route sandboxd serves, and nothing it does not: each pattern
// registered on either mux has its operations there (a pattern without a method, such as
// /fs, at least one), and each operation there is served by a pattern.
func TestEveryRouteIsInTheDocument(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "openapi.json"))
	must(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	must(t, json.Unmarshal(raw, &doc))
	documented := map[string]bool{} // "GET /runs/{id}/events"
	for path, item := range doc.Paths {
		for method := range item {
			if slices.Contains([]string{"get", "head", "put", "post", "delete", "patch", "options"}, method) {
				documented[strings.ToUpper(method)+" "+path] = false
			}
		}
	}

	s := wiredServer(t.TempDir())
	_, plain := s.routes()
	_, upgrades := s.upgradeRoutes()
	for _, pattern := range append(plain, upgrades...) {
		method, path, ok := strings.Cut(pattern, " ")
		if !ok {
			method, path = "", pattern
		}
		found := false
		for op := range documented {
			m, p, _ := strings.Cut(op, " ")
			if p == path && (method == "" || m == method) {
				documented[op], found = true, true
			}
		}
		if !found {
			t.Errorf("%s is served but not in openapi.json", pattern)
		}
	}
	var missing []string
	for op, served := range documented {
		if !served {
			missing = append(missing, op)
		}
	}
	sort.Strings(missing)
	for _, op := range missing {
		t.Errorf("%s is in openapi.json but no route serves it", op)
	}
}
