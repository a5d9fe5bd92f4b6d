import { HIDE_CURSOR, SHOW_CURSOR, inPlaceFrameWriter, plainFrameWriter } from './frame-writer';

describe('inPlaceFrameWriter', () => {
  it('hides the cursor, then redraws each frame over the previous one and clears what is left below', () => {
    const writes: string[] = [];
    const frames = inPlaceFrameWriter((text) => writes.push(text));
    frames.draw(['header', 'table a']);
    frames.draw(['header']);
    frames.finish();
    frames.finish();
    expect(writes).toEqual([
      `${HIDE_CURSOR}header\u001B[K\ntable a\u001B[K\n\u001B[J`,
      '\r\u001B[2Aheader\u001B[K\n\u001B[J',
      SHOW_CURSOR,
    ]);
  });

  it('leaves the cursor alone when nothing was drawn', () => {
    const writes: string[] = [];
    inPlaceFrameWriter((text) => writes.push(text)).finish();
    expect(writes).toEqual([]);
  });
});

describe('plainFrameWriter', () => {
  it('prints frames one after another, separated by a blank line, without escape sequences', () => {
    let output = '';
    const frames = plainFrameWriter((text) => (output += text));
    frames.draw(['one', 'a']);
    frames.draw(['two']);
    frames.finish();
    expect(output).toBe('one\na\n\ntwo\n');
  });
});
