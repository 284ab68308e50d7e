package wrapper

import (
	"reflect"
	"testing"

	"github.com/gozyme/gozyme/lto"
)

// TestConfigFromEnv: each variable lands in its field, read once.
func TestConfigFromEnv(t *testing.T) {
	for k, v := range map[string]string{
		"GOZYME_FLAGS": "-DX='a b'", "GOZYME_INCLUDE_DIR": "/tmp/inc", "GOZYME_GPU_LOOP_RECORDS": "32",
		"GOZYME_GPU_REPORT": "1", "GOZYME_GPU_BENCH_PLAIN_ADJOINTS": "1",
	} {
		t.Setenv(k, v)
	}
	want := Config{LTO: lto.ConfigFromEnv(), Flags: "-DX='a b'", IncludeDir: "/tmp/inc", GPULoopRecords: 32,
		GPUReport: true, GPUPlainAdjoints: true}
	if got := ConfigFromEnv(); !reflect.DeepEqual(got, want) {
		t.Errorf("ConfigFromEnv() = %+v\nwant %+v", got, want)
	}
	for _, k := range []string{"GOZYME_FLAGS", "GOZYME_INCLUDE_DIR", "GOZYME_GPU_REPORT", "GOZYME_GPU_BENCH_PLAIN_ADJOINTS"} {
		t.Setenv(k, "")
	}
	t.Setenv("GOZYME_GPU_LOOP_RECORDS", "many")
	if got := ConfigFromEnv(); got.Flags != "" || got.IncludeDir != "" || got.GPULoopRecords != 0 || got.GPUReport || got.GPUPlainAdjoints {
		t.Errorf("unset: ConfigFromEnv() = %+v", got)
	}
}
