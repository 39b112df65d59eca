import { isDeepStrictEqual } from "node:util";
import type { EntryEditor } from "./editor.js";
import { findBlock, instructionBlock, removeBlock, setBlock, skillFile } from "./instructions.js";

/** One file docdb changes: what installing makes of it, and what uninstalling leaves. */
export interface Target {
  file: string;
  /** The text after installing, from the current text ("" when the file is missing). */
  install(current: string | undefined): string;
  /** Whether the file holds something of docdb's. */
  present(current: string): boolean;
  /** Whether `current` and `backup` differ only in docdb's part (so the backup is the file before docdb). */
  sameBesidesOurs(current: string, backup: string): boolean;
  /** The text after removing docdb's part; `null` to delete the file, `keep` with a reason to leave it. */
  uninstall(current: string, backup: string | undefined): string | null | { keep: string };
}

export function configTarget(file: string, editor: EntryEditor, entry: unknown): Target {
  return {
    file,
    install(current) {
      const text = current ?? "";
      return isDeepStrictEqual(editor.get(text), entry) ? text : editor.set(text, entry);
    },
    present: (current) => editor.get(current) !== undefined,
    sameBesidesOurs: (current, backup) => isDeepStrictEqual(editor.rest(current), editor.rest(backup)),
    uninstall(current, backup) {
      // A docdb entry that was there before docdb install (the backup has it) is put back.
      const before = backup !== undefined ? editor.get(backup) : undefined;
      const text = before !== undefined ? editor.set(current, before) : editor.remove(current);
      return backup === undefined && editor.isBare(text) ? null : text;
    },
  };
}

export function blockTarget(file: string, db: string | undefined): Target {
  return {
    file,
    install(current) {
      const text = current ?? "";
      return setBlock(text, instructionBlock(db, text.includes("\r\n") ? "\r\n" : "\n"));
    },
    present: (current) => findBlock(current) !== undefined,
    sameBesidesOurs: (current, backup) => removeBlock(current) === removeBlock(backup),
    uninstall(current, backup) {
      const text = removeBlock(current);
      return backup === undefined && text.trim() === "" ? null : text;
    },
  };
}

/** A file that is wholly docdb's (a Claude Code skill); removed only while it is as docdb wrote it. */
export function fileTarget(file: string, db: string | undefined): Target {
  const ours = (text: string) => text === skillFile(/\(database `([^`]+)`\)/.exec(text)?.[1]);
  return {
    file,
    install: () => skillFile(db),
    present: (current) => current.startsWith("---\nname: docdb\n"),
    sameBesidesOurs: (current) => ours(current),
    uninstall: (current, backup) =>
      ours(current) ? (backup ?? null) : { keep: "it was changed after docdb wrote it: delete it yourself if you no longer want it" },
  };
}
