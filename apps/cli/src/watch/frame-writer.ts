/** Writes successive frames: over each other on a terminal, one after another anywhere else. */
export interface FrameWriter {
  draw(lines: string[]): void;
  /** Leaves the last frame on screen and the terminal as it was found (cursor shown). */
  finish(): void;
}

const ESC = '\u001B[';
export const HIDE_CURSOR = `${ESC}?25l`;
export const SHOW_CURSOR = `${ESC}?25h`;
const CLEAR_TO_LINE_END = `${ESC}K`;
const CLEAR_TO_SCREEN_END = `${ESC}J`;

/**
 * Redraws in place: back up over the previous frame, overwrite each line and clear what is left of it, then
 * clear below in case the new frame is shorter. Lines must fit the terminal's width, or wrapping would
 * make the line count wrong; each frame goes out in one write to avoid flicker.
 */
export function inPlaceFrameWriter(write: (text: string) => void): FrameWriter {
  let previousLines = 0;
  let cursorHidden = false;
  return {
    draw(lines) {
      let chunk = cursorHidden ? '' : HIDE_CURSOR;
      cursorHidden = true;
      if (previousLines > 0) chunk += `\r${ESC}${previousLines}A`;
      chunk += lines.map((line) => `${line}${CLEAR_TO_LINE_END}\n`).join('') + CLEAR_TO_SCREEN_END;
      previousLines = lines.length;
      write(chunk);
    },
    finish() {
      if (cursorHidden) write(SHOW_CURSOR);
      cursorHidden = false;
    },
  };
}

/** Every frame printed in full, frames separated by a blank line: for logs and pipes, no escape sequences. */
export function plainFrameWriter(write: (text: string) => void): FrameWriter {
  let framesWritten = 0;
  return {
    draw(lines) {
      write(`${framesWritten > 0 ? '\n' : ''}${lines.join('\n')}\n`);
      framesWritten++;
    },
    finish() {
      // Nothing to restore.
    },
  };
}
