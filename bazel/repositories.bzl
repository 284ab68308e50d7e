"""Workspace rules that set gozyme's Bazel build up offline.

rules_go and gozyme's Go module dependencies come from the Go module cache
(filled by `make bazel-deps`, i.e. `go mod download`); bazel-skylib and
platforms come from Debian's bazel-skylib and bazel-platforms packages. No
rule here touches the network.
"""

# The rules_go release this workspace uses: v0.34.0 is the newest that
# accepts Bazel 4.2 (Debian 12's bazel-bootstrap).
RULES_GO_MODULE = "github.com/bazelbuild/rules_go"
RULES_GO_VERSION = "v0.34.0"

# Patches that make rules_go v0.34.0 work with a Go >= 1.20 host SDK, which
# ships no precompiled standard library and (from Go 1.26) no cmd/pack:
# sdk-libs: the SDK's libs attribute takes any files (there are no .a files);
# build-stdlib: always build the standard library, with installgoroot=all;
# no-pack: append archive members in Go instead of running "go tool pack";
# tool-binary: the builder is built with "go build" (compiling what it imports).
# Two more that make building gozyme cheaper, its outputs byte-identical:
# one-stdlib: go_library reaches the standard library through go_binary's
# transition (Bazel 4 put it in a second output directory, built twice);
# stdlib-src: the standard library's src output is left empty (the copy of
# GOROOT/src "go install" read; no later action does).
RULES_GO_PATCHES = [
    "@gozyme//bazel/patches:rules_go-sdk-libs.patch",
    "@gozyme//bazel/patches:rules_go-build-stdlib.patch",
    "@gozyme//bazel/patches:rules_go-no-pack.patch",
    "@gozyme//bazel/patches:rules_go-tool-binary.patch",
    "@gozyme//bazel/patches:rules_go-one-stdlib.patch",
    "@gozyme//bazel/patches:rules_go-stdlib-src.patch",
]

_GO_ENV = ["PATH", "GOMODCACHE", "GOPATH", "HOME", "GOROOT"]

def _go_tool(rctx):
    go = rctx.which("go")
    if not go:
        fail("gozyme: no `go` on PATH (install Go or add it to PATH; the Bazel rules read the Go module cache with it)")
    return go

def _go_env(rctx, go, key):
    res = rctx.execute([go, "env", key])
    if res.return_code != 0:
        fail("gozyme: go env %s failed: %s" % (key, res.stderr))
    return res.stdout.strip()

def _escape_module_path(path):
    # The module cache spells an upper-case letter as "!" + lower case.
    out = ""
    for c in path.elems():
        if c.isupper():
            out += "!" + c.lower()
        else:
            out += c
    return out

def _go_module_cache_archive_impl(rctx):
    go = _go_tool(rctx)
    modcache = _go_env(rctx, go, "GOMODCACHE")
    zip = "%s/cache/download/%s/@v/%s.zip" % (modcache, _escape_module_path(rctx.attr.module), rctx.attr.version)
    if not rctx.path(zip).exists:
        fail(("gozyme: %s@%s is not in the Go module cache (%s); fetch it first with\n" +
              "    go mod download %s@%s\n(or `make bazel-deps`)") % (
            rctx.attr.module,
            rctx.attr.version,
            zip,
            rctx.attr.module,
            rctx.attr.version,
        ))
    rctx.extract(zip, stripPrefix = "%s@%s" % (rctx.attr.module, rctx.attr.version))
    for patch in rctx.attr.patches:
        rctx.patch(patch, strip = 1)

go_module_cache_archive = repository_rule(
    implementation = _go_module_cache_archive_impl,
    doc = "A repository extracted from a module zip in the Go module cache, with patches applied.",
    attrs = {
        "module": attr.string(mandatory = True),
        "version": attr.string(mandatory = True),
        "patches": attr.label_list(),
    },
    environ = _GO_ENV,
)

# go list template: one line per non-standard, non-main package:
# importpath|name|dir|files|imports
_LIST_TEMPLATE = "{{if not .Standard}}{{if .Module}}{{if not .Module.Main}}" + \
                 "{{.ImportPath}}|{{.Name}}|{{.Dir}}|" + \
                 "{{join .GoFiles \",\"}}{{if .SFiles}},{{join .SFiles \",\"}}{{end}}|" + \
                 "{{join .Imports \",\"}}\n{{end}}{{end}}{{end}}"

def _go_module_deps_impl(rctx):
    go = _go_tool(rctx)
    gomod = rctx.path(rctx.attr.go_mod)
    rctx.path(rctx.attr.go_sum)  # re-fetch when go.sum changes
    env = {
        "GOFLAGS": "-mod=readonly",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOWORK": "off",
        "GO111MODULE": "on",
    }
    res = rctx.execute(
        [go, "list", "-deps", "-f", _LIST_TEMPLATE] + rctx.attr.packages,
        working_directory = str(gomod.dirname),
        environment = env,
    )
    if res.return_code != 0:
        fail(("gozyme: go list -deps %s failed (are the modules in the Go module cache? " +
              "run `go mod download` or `make bazel-deps`):\n%s") % (" ".join(rctx.attr.packages), res.stderr))
    pkgs = []
    for line in res.stdout.strip().split("\n"):
        if line:
            pkgs.append(line.split("|"))
    known = {p[0]: True for p in pkgs}
    for importpath, name, dir, files, imports in pkgs:
        srcs = []
        for f in files.split(","):
            if f:
                rctx.file("%s/%s" % (importpath, f), rctx.read("%s/%s" % (dir, f)), executable = False)
                srcs.append(f)
        deps = ["//%s" % i for i in imports.split(",") if i in known]
        rctx.file("%s/BUILD.bazel" % importpath, _BUILD_TEMPLATE.format(
            name = importpath.split("/")[-1],
            srcs = repr(sorted(srcs)),
            importpath = importpath,
            deps = repr(sorted(deps)),
        ))
    rctx.file("BUILD.bazel", "# Go packages from the Go module cache, generated by @gozyme//bazel:repositories.bzl\n")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)

_BUILD_TEMPLATE = """# Generated by @gozyme//bazel:repositories.bzl from the Go module cache.
load("@io_bazel_rules_go//go:def.bzl", "go_library")

go_library(
    name = "{name}",
    srcs = {srcs},
    importpath = "{importpath}",
    visibility = ["//visibility:public"],
    deps = {deps},
)
"""

go_module_deps = repository_rule(
    implementation = _go_module_deps_impl,
    doc = """The Go packages (outside the standard library and the main module) that
`packages` import, as go_library targets @NAME//IMPORTPATH, copied from the
Go module cache: `go list -deps` with GOPROXY=off, so nothing is downloaded.""",
    attrs = {
        "go_mod": attr.label(default = "@gozyme//:go.mod", allow_single_file = True),
        "go_sum": attr.label(default = "@gozyme//:go.sum", allow_single_file = True),
        "packages": attr.string_list(default = ["./cmd/..."]),
    },
    environ = _GO_ENV + ["GOFLAGS", "GOPROXY"],
)

def _native_rules_impl(rctx):
    # A stand-in for rules_cc/rules_java that re-exports Bazel's native rules:
    # @bazel_tools loads them when toolchains are resolved, and the released
    # archives (or Debian's rules_cc 0.0.4) do not work offline on Bazel 4.2.
    lang = rctx.attr.lang
    lines = ["# Re-exports Bazel's native %s rules (generated by @gozyme//bazel:repositories.bzl)." % lang]
    for r in rctx.attr.rules:
        lines.append("def %s(**kwargs):\n    native.%s(**kwargs)\n" % (r, r))
    rctx.file("%s/defs.bzl" % lang, "\n".join(lines) + "\n")
    build = 'exports_files(["defs.bzl"])\n'
    if lang == "cc":
        build += 'alias(name = "toolchain_type", actual = "@bazel_tools//tools/cpp:toolchain_type", visibility = ["//visibility:public"])\n'
    rctx.file("%s/BUILD.bazel" % lang, build)
    rctx.file("BUILD.bazel", "")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)

_native_rules = repository_rule(
    implementation = _native_rules_impl,
    attrs = {"lang": attr.string(), "rules": attr.string_list()},
)

_CC_RULES = ["cc_binary", "cc_import", "cc_library", "cc_proto_library", "cc_shared_library", "cc_test", "cc_toolchain", "cc_toolchain_suite", "fdo_prefetch_hints", "fdo_profile", "objc_import", "objc_library"]
_JAVA_RULES = ["java_binary", "java_import", "java_library", "java_lite_proto_library", "java_package_configuration", "java_plugin", "java_proto_library", "java_runtime", "java_test", "java_toolchain"]

def gozyme_native_rules_repositories():
    """@rules_cc and @rules_java as offline stand-ins re-exporting the native rules."""
    _maybe(_native_rules, "rules_cc", lang = "cc", rules = _CC_RULES)
    _maybe(_native_rules, "rules_java", lang = "java", rules = _JAVA_RULES)

def _maybe(rule, name, **kwargs):
    if name not in native.existing_rules():
        rule(name = name, **kwargs)

def gozyme_rules_go_repositories(debian_bazel = "/usr/share/bazel/tools"):
    """rules_go (patched) from the Go module cache, skylib and platforms from Debian.

    Call from WORKSPACE, then load @io_bazel_rules_go//go:deps.bzl and call
    go_rules_dependencies() and go_register_toolchains(go_version = "host"),
    then gozyme_go_deps().
    """
    gozyme_native_rules_repositories()
    _maybe(native.local_repository, "bazel_skylib", path = debian_bazel + "/skylib")
    _maybe(native.local_repository, "platforms", path = debian_bazel + "/platforms")
    _maybe(
        go_module_cache_archive,
        "io_bazel_rules_go",
        module = RULES_GO_MODULE,
        version = RULES_GO_VERSION,
        patches = RULES_GO_PATCHES,
    )

def gozyme_go_deps():
    """gozyme's Go module dependencies as @gozyme_go_deps//IMPORTPATH."""
    _maybe(go_module_deps, "gozyme_go_deps")
