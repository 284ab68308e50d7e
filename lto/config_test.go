package lto

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestConfigFromEnv: each variable lands in its field, read once.
func TestConfigFromEnv(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	for k, v := range map[string]string{
		"GOZYME_REAL_LD": "ld.lld", "GOZYME_OPT_LEVEL": "-O3", "GOZYME_JOBS": "3",
		"GOZYME_AD_STAGE": "pre", "GOZYME_TIMES": "1", "GOZYME_KEEP_TEMPS": "", "GOZYME_PRINT_TYPES": "1",
		"GOZYME_CACHE": cache, ObjectSourcesEnv: `{"/tmp/a.o":"a.c"}`,
	} {
		t.Setenv(k, v)
	}
	cfg := ConfigFromEnv()
	want := Config{RealLD: "ld.lld", OptLevel: "-O3", Jobs: 3, ADStage: "pre", Times: true, PrintTypes: true,
		CacheDir: cache, ObjectSources: map[string]string{"/tmp/a.o": "a.c"}, cacheEnv: cfg.cacheEnv}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("ConfigFromEnv() = %+v\nwant %+v", cfg, want)
	}
	if len(cfg.cacheEnv) != len(cacheEnv) {
		t.Errorf("cache-key environment %q", cfg.cacheEnv)
	}
	// Unusable values count as unset; KeepTemps turns the cache off.
	for k, v := range map[string]string{
		"GOZYME_JOBS": "-2", "GOZYME_TIMES": "0", "GOZYME_KEEP_TEMPS": "/tmp/keep",
		ObjectSourcesEnv: "{not json",
	} {
		t.Setenv(k, v)
	}
	cfg = ConfigFromEnv()
	if cfg.Jobs != 0 || cfg.Times || cfg.KeepTemps != "/tmp/keep" || cfg.CacheDir != "" || cfg.ObjectSources != nil {
		t.Errorf("ConfigFromEnv() = %+v", cfg)
	}
	t.Setenv("GOZYME_KEEP_TEMPS", "")
	for _, off := range []string{"off", "0"} {
		t.Setenv("GOZYME_CACHE", off)
		if dir := ConfigFromEnv().CacheDir; dir != "" {
			t.Errorf("GOZYME_CACHE=%s: cache in %q", off, dir)
		}
	}
}
