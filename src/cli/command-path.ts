/** A command's words after `cihub`, as an operator types them: `dev engine` (empty for cihub itself). */
import type { Command } from 'commander';

export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c !== null && c.parent !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
