// The agents the fault tests run: one `sh` script whose first stdin line says what to do.

/**
 * `write`: writes 256 KiB files of random bytes into /workspace/out, each under a
 * temporary name renamed when complete, and prints `done <file> <sha256>` per file.
 * `check`: prints `<file> <size> <sha256>` for every complete file.
 * `serve`: prints `ready <shell pid> <child pid>`, then waits on a child (`sleep`) until
 * SIGTERM, which it records in /workspace/got-term before it exits.
 * `alive <pid>…`: prints `alive <pid> <state>` for each pid that still exists in the sandbox
 * (state `Z`: a zombie no one reaped), then the SIGTERM marker.
 * `put <name> <text>` / `get <name>`: a file in /workspace/data, and its sha256.
 */
export const FAULT_AGENT = `read mode arg1 arg2
case "$mode" in
write)
  mkdir -p /workspace/out
  i=0
  while :; do
    i=$((i+1))
    head -c 262144 /dev/urandom > /workspace/out/f$i.part
    mv /workspace/out/f$i.part /workspace/out/f$i
    echo "done f$i $(sha256sum /workspace/out/f$i | cut -c1-64)"
    sleep 0.02
  done ;;
check)
  cd /workspace/out && for f in f*; do
    case "$f" in *.part) continue ;; esac
    echo "$f $(wc -c < "$f") $(sha256sum < "$f" | cut -c1-64)"
  done ;;
serve)
  trap 'echo term >> /workspace/got-term; exit 143' TERM
  sleep 100000 &
  echo "ready $$ $!"
  wait ;;
alive)
  for p in $arg1 $arg2; do
    [ -e /proc/$p ] && echo "alive $p $(cut -d' ' -f3 /proc/$p/stat)"
  done
  cat /workspace/got-term 2>/dev/null ;;
put)
  mkdir -p /workspace/data && echo "$arg2" > /workspace/data/$arg1
  sha256sum < /workspace/data/$arg1 | cut -c1-64 ;;
get)
  sha256sum < /workspace/data/$arg1 | cut -c1-64 ;;
esac
`;
