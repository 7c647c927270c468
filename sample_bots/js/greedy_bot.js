#!/usr/bin/env node
// A greedy All Fives bot for the allfives referee, in JavaScript for Node.js (no dependencies).
//
// Run it:    allfives match "node sample_bots/js/greedy_bot.js" builtin:random
// Check it:  allfives check "node sample_bots/js/greedy_bot.js"
//
// The protocol (protocol.md): one JSON object a line on stdin and stdout. Answer `hello` and
// `turn`, echoing their `id`; ignore every other message. Each turn lists the legal moves with
// the points each would score: take the most points, and on a tie shed the heaviest tile.

"use strict";

const readline = require("node:readline");

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function pips(tile) {
  return tile[0] + tile[1];
}

function choose(legal) {
  let best = legal[0];
  for (const choice of legal) {
    const better =
      choice.points > best.points ||
      (choice.points === best.points && pips(choice.tile) > pips(best.tile));
    if (better) best = choice;
  }
  return best;
}

const input = readline.createInterface({ input: process.stdin });

input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "hello", id: message.id, name: "greedy-js" });
  } else if (message.type === "turn") {
    const best = choose(message.view.legal);
    send({ type: "move", id: message.id, tile: best.tile, end: best.end });
  } else if (message.type === "bye") {
    input.close();
  }
});

input.on("close", () => process.exit(0));
