"""A cc_toolchain configuration whose compile and link actions run gozyme.

C goes through gozyme-cc, C++ and every link through gozyme-c++: objects are
fat (they embed their bitcode) and links differentiate the program. The
commands come either from a label (gozyme built by Bazel: a directory of
gozyme-cc, gozyme-c++ and gozyme-ld, see gozyme_tools) or from the directory
they are installed in (bin_dir).
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "action_config",
    "feature",
    "flag_group",
    "flag_set",
    "tool",
    "tool_path",
    "with_feature_set",
)

_C_COMPILE = [ACTION_NAMES.c_compile]
_CXX_COMPILE = [
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.cpp_module_codegen,
    ACTION_NAMES.linkstamp_compile,
]
_ASM = [ACTION_NAMES.assemble, ACTION_NAMES.preprocess_assemble]
_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]
_ALL_COMPILE = _C_COMPILE + _CXX_COMPILE + _ASM

# Flags that keep outputs independent of the (sandbox) directory an action
# runs in and of the time it runs at, so that caches can share them.
_DETERMINISM_FLAGS = [
    "-no-canonical-prefixes",
    "-ffile-compilation-dir=.",
    "-Wno-builtin-macro-redefined",
    "-D__DATE__=\"redacted\"",
    "-D__TIMESTAMP__=\"redacted\"",
    "-D__TIME__=\"redacted\"",
]

def _tool(ctx, name):
    """The tool running gozyme command NAME: a file from `tools`, or a path in bin_dir."""
    if ctx.attr.tools:
        for f in ctx.files.tools:
            if f.basename == name:
                return tool(tool = f)
        fail("%s: %s has no %s" % (ctx.label, ctx.attr.tools.label, name))
    if not ctx.attr.bin_dir:
        fail("%s: set tools (a gozyme_tools label) or bin_dir (where gozyme is installed)" % ctx.label)
    return tool(path = ctx.attr.bin_dir + "/" + name)

def _flags(actions, flags, features = None):
    """A flag_set adding flags to actions (when every one of features is on); [] for no flags."""
    if not flags:
        return []
    return [flag_set(
        actions = actions,
        flag_groups = [flag_group(flags = flags)],
        with_features = [with_feature_set(features = features)] if features else [],
    )]

def _impl(ctx):
    cc = _tool(ctx, "gozyme-cc")
    cxx = _tool(ctx, "gozyme-c++")
    action_configs = (
        [action_config(name, tools = [cc], implies = ["compiler_param_file"]) for name in _C_COMPILE + _ASM] +
        [action_config(name, tools = [cxx], implies = ["compiler_param_file"]) for name in _CXX_COMPILE] +
        [action_config(name, tools = [cxx]) for name in _LINK]
    )
    features = [
        feature(name = "dbg"),
        feature(name = "opt"),
        feature(name = "fastbuild"),
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        # Compile command lines go through response files (@file), as links do.
        feature(name = "compiler_param_file", enabled = True),
        feature(
            name = "gozyme_compile_flags",
            enabled = True,
            flag_sets = (
                _flags(_ALL_COMPILE, _DETERMINISM_FLAGS + ctx.attr.compile_flags) +
                _flags(_ALL_COMPILE, ["-g", "-O0"], ["dbg"]) +
                _flags(_ALL_COMPILE, ["-O2", "-DNDEBUG"], ["opt"]) +
                _flags(_CXX_COMPILE, ctx.attr.cxx_flags)
            ),
        ),
        feature(
            name = "gozyme_link_flags",
            enabled = True,
            flag_sets = (
                _flags(_LINK, ["-no-canonical-prefixes"] + ctx.attr.link_flags) +
                _flags(_LINK, ["-O2"], ["opt"])
            ),
        ),
    ]

    # Actions without an action_config (archiving, stripping) use these.
    tool_paths = [
        tool_path(name = "ar", path = ctx.attr.ar),
        tool_path(name = "cpp", path = "/bin/false"),
        tool_path(name = "gcc", path = "/bin/false"),
        tool_path(name = "gcov", path = "/bin/false"),
        tool_path(name = "ld", path = "/bin/false"),
        tool_path(name = "nm", path = ctx.attr.nm),
        tool_path(name = "objdump", path = "/bin/false"),
        tool_path(name = "strip", path = ctx.attr.strip),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = "gozyme",
        host_system_name = "local",
        target_system_name = "local",
        target_cpu = "k8",
        target_libc = "local",
        compiler = "gozyme",
        abi_version = "local",
        abi_libc_version = "local",
        action_configs = action_configs,
        features = features,
        tool_paths = tool_paths,
        cxx_builtin_include_directories = ctx.attr.builtin_include_directories,
    )

gozyme_cc_toolchain_config = rule(
    implementation = _impl,
    provides = [CcToolchainConfigInfo],
    attrs = {
        "tools": attr.label(cfg = "exec", allow_files = True, doc = "gozyme-cc, gozyme-c++ and gozyme-ld side by side (gozyme_tools)"),
        "bin_dir": attr.string(doc = "Directory of an installed gozyme-cc, gozyme-c++ and gozyme-ld"),
        "builtin_include_directories": attr.string_list(),
        "compile_flags": attr.string_list(),
        "cxx_flags": attr.string_list(),
        "link_flags": attr.string_list(default = ["-lm"]),
        "ar": attr.string(default = "/usr/bin/ar"),
        "nm": attr.string(default = "/usr/bin/nm"),
        "strip": attr.string(default = "/usr/bin/strip"),
    },
)

def _gozyme_tools_impl(ctx):
    # gozyme-cc finds gozyme-ld beside itself: copy the three commands into
    # one directory (copies, not symlinks, which it would resolve).
    outs = []
    for src in ctx.files.srcs:
        out = ctx.actions.declare_file("%s/%s" % (ctx.label.name, src.basename))
        ctx.actions.run_shell(
            inputs = [src],
            outputs = [out],
            command = 'cp "$1" "$2"',
            arguments = [src.path, out.path],
            mnemonic = "GozymeCopy",
            progress_message = "Copying %s" % src.basename,
        )
        outs.append(out)
    return [DefaultInfo(files = depset(outs))]

gozyme_tools = rule(
    implementation = _gozyme_tools_impl,
    doc = "gozyme-cc, gozyme-c++ and gozyme-ld copied into one directory.",
    attrs = {"srcs": attr.label_list(allow_files = True)},
)
