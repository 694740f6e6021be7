import * as assert from "node:assert/strict";
import { test } from "node:test";
import { askTeach, citation, Prompts, taughtMessage, teachRequest, TYPES } from "../src/teach";

test("a selection's citation is 1-based and leaves out a last line it does not enter", () => {
  assert.equal(citation("src/a.py", { line: 4, character: 2 }, { line: 8, character: 10 }), "src/a.py:5-9");
  assert.equal(citation("src/a.py", { line: 4, character: 0 }, { line: 9, character: 0 }), "src/a.py:5-9"); // whole lines 5-9
  assert.equal(citation("a.py", { line: 0, character: 3 }, { line: 0, character: 7 }), "a.py:1-1");
  assert.equal(citation("a.py", { line: 2, character: 0 }, { line: 2, character: 0 }), "a.py:3-3");
});

function scripted(...replies: (string | undefined)[]): Prompts & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    input: async (o) => {
      asked.push(`input: ${o.title}`);
      const reply = replies.shift();
      assert.equal(o.validate(""), "the memory needs some text");
      assert.equal(o.validate("x"), undefined);
      return reply;
    },
    pick: async (items, o) => {
      asked.push(`pick: ${o.title}: ${items.map((i) => i.label).join(",")}`);
      const reply = replies.shift();
      return items.find((i) => i.label === reply);
    },
  };
}

test("teach asks for the text, then the type with the suggested one first", async () => {
  const ui = scripted("  parse() splits on whitespace only  ", "dead_end");
  const args = await askTeach(ui, ["pkg/core.py:1-3"], "gotcha");
  assert.deepEqual(args, { text: "parse() splits on whitespace only", type: "dead_end", cite: ["pkg/core.py:1-3"] });
  assert.equal(ui.asked[0], "input: Teach a memory about pkg/core.py:1-3");
  assert.equal(ui.asked[1], `pick: Memory type: gotcha,${TYPES.filter((t) => t !== "gotcha").join(",")}`);
});

test("teach passes the workspace folder on; cancelling either prompt or an empty text stores nothing", async () => {
  assert.deepEqual(await askTeach(scripted("x", "fact"), [], "policy", "/w/b"), { text: "x", type: "fact", cite: [], workspace: "/w/b" });
  assert.equal(await askTeach(scripted(undefined), ["a.py:1-2"]), undefined);
  assert.equal(await askTeach(scripted("   "), ["a.py:1-2"]), undefined);
  assert.equal(await askTeach(scripted("text", undefined), ["a.py:1-2"]), undefined);
});

test("the server's teach action is recognised: memory.teachDraft, or memory.teach without text", () => {
  assert.deepEqual(teachRequest("memory.teachDraft", [{ cite: ["src/flask/helpers.py:195-199"], type: "gotcha" }]),
    { cite: ["src/flask/helpers.py:195-199"], type: "gotcha" });
  assert.deepEqual(teachRequest("memory.teach", [{ cite: ["a.py::f"], type: "decision", workspace: "/w" }]),
    { cite: ["a.py::f"], type: "decision", workspace: "/w" });
  assert.deepEqual(teachRequest("memory.teachDraft", [{ cite: "a.py", type: "no-such-type" }]), { cite: [], type: "gotcha" });
  assert.equal(teachRequest("memory.teach", [{ text: "known", type: "fact", cite: [] }]), undefined);
  assert.equal(teachRequest("memory.search", [{ query: "x" }]), undefined);
  assert.equal(teachRequest("memory.teachDraft", [1, 2]), undefined);
  assert.equal(teachRequest("memory.teachDraft", ["a.py"]), undefined);
});

test("the message after teaching", () => {
  assert.equal(taughtMessage({ id: "01ABC", created: true, similar: [] }), "memory-lsp: stored memory 01ABC");
  assert.equal(taughtMessage({ id: "01ABC", created: false }), "memory-lsp: already known as memory 01ABC");
  assert.equal(taughtMessage({ id: "01ABC", created: true, similar: [{}, {}] }), "memory-lsp: stored memory 01ABC (2 similar already known)");
});
