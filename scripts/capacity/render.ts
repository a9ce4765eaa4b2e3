export function renderCapacity(r: unknown): string { return "```json\n" + JSON.stringify(r, null, 1) + "\n```\n"; }
