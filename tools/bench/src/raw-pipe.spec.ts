import { pipeCommands, psqlCommand, teeCommands } from './raw-pipe';

const node = process.execPath;

describe('pipeCommands', () => {
  it("feeds a's stdout to b's stdin and resolves with b's stdout", async () => {
    const produce = { file: node, args: ['-e', 'for (let i = 0; i < 10000; i++) process.stdout.write("line " + i + "\\n")'] };
    const countLines = { file: node, args: ['-e', 'let n = 0; process.stdin.on("data", (c) => { n += c.toString().split("\\n").length - 1 }); process.stdin.on("end", () => process.stdout.write("COPY " + n))'] };
    await expect(pipeCommands(produce, countLines)).resolves.toBe('COPY 10000');
  });

  it('fails when either side fails', async () => {
    const ok = { file: node, args: ['-e', 'process.stdout.write("x")'] };
    const broken = { file: node, args: ['-e', 'process.stderr.write("no table"); process.exit(1)'] };
    await expect(pipeCommands(broken, { file: node, args: ['-e', 'process.stdin.resume()'] })).rejects.toThrow(/exited with 1: no table/);
    await expect(pipeCommands(ok, broken)).rejects.toThrow(/no table/);
  });
});

describe('teeCommands', () => {
  const produce = { file: node, args: ['-e', 'for (let i = 0; i < 20000; i++) process.stdout.write("line " + i + "\\n")'] };
  const countLines = (label: string) => ({
    file: node,
    args: ['-e', `let n = 0; process.stdin.on("data", (c) => { n += c.toString().split("\\n").length - 1 }); process.stdin.on("end", () => process.stdout.write("${label} " + n))`],
  });

  it("feeds a's stdout to both b and c and resolves with their stdout", async () => {
    await expect(teeCommands(produce, countLines('B'), countLines('C'))).resolves.toEqual(['B 20000', 'C 20000']);
  });

  it('fails when a reader fails', async () => {
    const broken = { file: node, args: ['-e', 'process.stderr.write("no table"); process.exit(1)'] };
    await expect(teeCommands(produce, countLines('B'), broken)).rejects.toThrow(/no table|tee exited/);
  });
});

describe('psqlCommand', () => {
  it('runs one command without psqlrc, stopping on error, against the URL', () => {
    expect(psqlCommand('/usr/bin/psql', 'postgres://postgres@127.0.0.1:5432/src', '\\copy t to stdout')).toEqual({
      file: '/usr/bin/psql',
      args: ['-h', '127.0.0.1', '-p', '5432', '-U', 'postgres', '-X', '-v', 'ON_ERROR_STOP=1', '-c', '\\copy t to stdout', '-d', 'src'],
      env: {},
    });
  });
});
