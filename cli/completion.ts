// Shell completion for bash and zsh, written from the command tree itself, so a new command
// or flag completes without editing a script. Sandbox names complete from `sbx ls`.
import type { Command } from 'commander';

interface Node {
  name: string;
  flags: string[];
  children: Node[];
}

function walk(cmd: Command): Node {
  return {
    name: cmd.name(),
    flags: cmd.options.flatMap((o) => [o.short, o.long].filter((f): f is string => !!f)),
    children: cmd.commands.map(walk),
  };
}

/** Commands whose first operand is a sandbox name. */
const TAKES_SANDBOX = [
  'get',
  'rm',
  'stop',
  'resume',
  'clone',
  'exec',
  'shell',
  'logs',
  'configure',
  'invoke',
  'cancel',
  'runs',
  'attach',
  'port-forward',
  'ports',
];

export function completionScript(shell: 'bash' | 'zsh', root: Command): string {
  const tree = walk(root);
  const globals = tree.flags.concat('--help');
  // One case arm per command path ("sbx", "sbx context", …): its words are its subcommands and flags.
  const arms: string[] = [];
  const visit = (n: Node, path: string) => {
    const words = [...n.children.map((c) => c.name), ...n.flags, ...(path === 'sbx' ? [] : globals)];
    arms.push(`    "${path}") words="${words.join(' ')}" ;;`);
    for (const c of n.children) visit(c, `${path} ${c.name}`);
  };
  visit(tree, 'sbx');
  const bash = `# sbx completion for bash: source <(sbx completion bash)
_sbx() {
  local cur path="sbx" words i w
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case "$path $w" in
${arms.map((a) => a.replace(/^ {4}"([^"]+)"\).*$/, '      "$1") path="$1" ;;')).join('\n')}
    esac
  done
  case "$path" in
${arms.join('\n')}
  esac
  local last="\${path##* }"
  if [[ "$cur" != -* && " ${TAKES_SANDBOX.join(' ')} " == *" $last "* ]]; then
    words="$words $(sbx ls -o name 2>/dev/null)"
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _sbx sbx
`;
  if (shell === 'bash') return bash;
  // zsh runs the bash function through bashcompinit: one script, the same answers.
  return `#compdef sbx
# sbx completion for zsh: sbx completion zsh > "\${fpath[1]}/_sbx" (or source <(sbx completion zsh))
autoload -U +X bashcompinit && bashcompinit
${bash}`;
}
