package main

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestPackaging checks the registry entry and the Claude Code plugin
// manifest against what their formats require and against each other: the
// MCP Registry's server.json (schema 2025-09-29: a reverse-DNS name with one
// slash, a description of at most 100 characters, a version) and the
// plugin's mcpServers entry, which must start this server.
func TestPackaging(t *testing.T) {
	var server struct {
		Schema      string `json:"$schema"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Version     string `json:"version"`
		Repository  struct {
			URL    string `json:"url"`
			Source string `json:"source"`
		} `json:"repository"`
	}
	readJSON(t, "../../server.json", &server)
	if !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(server.Name) {
		t.Errorf("server.json name %q is not namespace/name", server.Name)
	}
	if n := len([]rune(server.Description)); n == 0 || n > 100 {
		t.Errorf("server.json description is %d characters; the registry wants 1-100", n)
	}
	if server.Version == "" || server.Schema == "" || server.Repository.URL == "" || server.Repository.Source == "" {
		t.Errorf("server.json lacks $schema, version or repository: %+v", server)
	}

	var plugin struct {
		Name       string `json:"name"`
		Version    string `json:"version"`
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSON(t, "../../.claude-plugin/plugin.json", &plugin)
	s, ok := plugin.MCPServers["ttymux"]
	if !ok || s.Command != "ttymux" || len(s.Args) != 1 || s.Args[0] != "mcp" {
		t.Errorf("plugin.json mcpServers.ttymux = %+v, want ttymux mcp", plugin.MCPServers)
	}
	if plugin.Version != server.Version {
		t.Errorf("plugin.json version %s, server.json %s: release them together", plugin.Version, server.Version)
	}
	var market struct {
		Plugins []struct {
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"plugins"`
	}
	readJSON(t, "../../.claude-plugin/marketplace.json", &market)
	if len(market.Plugins) != 1 || market.Plugins[0].Name != plugin.Name || market.Plugins[0].Source != "./" {
		t.Errorf("marketplace.json plugins = %+v, want the one plugin at ./", market.Plugins)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
