#!/bin/bash
# Runs gozyme's benchmark workloads on a quiet machine with many idle cores
# (no clang, LLVM or Go needed there: bench/remote built them statically).
# Each job of the file jobs (a line: the program, then its arguments) runs
# pinned with taskset to a logical CPU of its own *physical* core: one CPU
# per core, never two hyperthread siblings at once (a busy sibling moved a
# primal's time by 2x). With more jobs than cores they run in waves. Each
# runs in its own folder under work/ (ADOL-C writes its tapes to the
# working directory), under a timeout. Everything goes to one results
# file: the machine (DATE, CPU, LSCPU, PIN lines), then each job's output,
# every line prefixed by the job's name (gmm/post TIME ...), and its exit
# status (gmm/post EXIT 0).
#
#   run.sh [RESULTS]   (in the folder bench/remote filled; default results.txt)
#   environment: TIMEOUT (seconds per job, default 1800), ONLY (job names to
#   run, space-separated, default all), MODE=test (each program's test mode,
#   which checks the gradients and prints OK, instead of timing)
cd "$(dirname "$0")" || exit 1
results=${1:-results.txt}
timeout=${TIMEOUT:-1800}

# The logical CPUs this process may use, one per line.
allowed() {
  grep Cpus_allowed_list /proc/self/status | cut -f2 | tr ',' '\n' |
    awk -F- '{ hi = ($2 == "" ? $1 : $2); for (c = $1; c <= hi; c++) print c }'
}

# One allowed logical CPU per physical core (the lowest numbered), in
# order of socket and core.
one_per_core() {
  local ok
  ok=" $(allowed | tr '\n' ' ') "
  lscpu -p=CPU,CORE,SOCKET | grep -v '^#' | sort -t, -k3,3n -k2,2n -k1,1n |
    while IFS=, read -r cpu core socket; do
      case "$ok" in *" $cpu "*) echo "$socket,$core $cpu" ;; esac
    done | awk '!seen[$1]++ { print $2 }'
}

jobs=()
while read -r name args; do
  [ -z "$name" ] && continue
  if [ -n "${ONLY:-}" ]; then
    case " $ONLY " in *" $name "*) ;; *) continue ;; esac
  fi
  jobs+=("$name${args:+ $args}")
done < jobs

mapfile -t cpus < <(one_per_core)
# Leave the first core (interrupts, the shell) idle when there are more
# cores than jobs.
if [ "${#cpus[@]}" -gt "${#jobs[@]}" ] && [ "${#cpus[@]}" -gt 1 ]; then
  cpus=("${cpus[@]:1}")
fi
if [ "${#cpus[@]}" -eq 0 ]; then
  echo "run.sh: no CPU found (lscpu -p)" >&2
  exit 1
fi

mkdir -p work out
rm -f out/*.out
{
  echo "DATE $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "CPU $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  lscpu | grep -E '^(Architecture|CPU\(s\)|On-line CPU|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)|CPU max MHz|CPU min MHz|L[123][di]? cache)' |
    sed 's/  */ /g; s/^/LSCPU /'
  gov=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
  [ -r "$gov" ] && echo "GOVERNOR $(cat $gov)"
  echo "KERNEL $(uname -sr)"
  echo "MODE ${MODE:-time} TIMEOUT $timeout JOBS ${#jobs[@]} CORES ${#cpus[@]}"
} > "$results"

# run_job NAME CPU ARGS...: one job, pinned, in its own folder.
run_job() {
  local name=$1 cpu=$2
  shift 2
  local dir="work/${name//\//-}" out="out/${name//\//-}.out"
  mkdir -p "$dir"
  if [ "${MODE:-}" = test ]; then set -- test; fi
  (cd "$dir" && exec timeout "$timeout" taskset -c "$cpu" "../../$name" "$@") > "$out" 2>&1
  echo "EXIT $?" >> "$out"
}

i=0
while [ "$i" -lt "${#jobs[@]}" ]; do
  for cpu in "${cpus[@]}"; do
    [ "$i" -ge "${#jobs[@]}" ] && break
    read -r -a job <<< "${jobs[$i]}"
    echo "PIN ${job[0]} cpu $cpu" >> "$results"
    run_job "${job[0]}" "$cpu" "${job[@]:1}" &
    i=$((i + 1))
  done
  wait
done

for j in "${jobs[@]}"; do
  name=${j%% *}
  sed "s|^|$name |" "out/${name//\//-}.out" >> "$results"
done
echo "DONE $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$results"
echo "run.sh: wrote $results"
