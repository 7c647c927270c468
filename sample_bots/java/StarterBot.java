// A starter kit for an All Fives bot in Java: JDK 17 or later, nothing else, one file.
//
// It speaks protocol 1 (protocol.md): it reads one JSON object a line on stdin and answers
// `hello` and `turn` with one line on stdout, flushed at once. Each turn's view is read into
// Java's own types (View, Choice, Tile, ...) by a small JSON reader at the bottom of the file:
// all that is left to write is choose(). As it is, it plays greedy (as builtin:greedy does).
//
// Compile and check it, then play it:
//   javac -d out sample_bots/java/StarterBot.java
//   allfives check "java -cp out StarterBot"
//   allfives match "java -cp out StarterBot" builtin:greedy --games 10
// (`java sample_bots/java/StarterBot.java` runs it without javac, but compiles it at every
// start, which takes about a second of the start-up allowance.)
//
// Log to System.err, never to System.out: every line on stdout is read as a message.

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

public final class StarterBot {
    /** The name the bot gives in its hello; the referee shows it in results. */
    static final String NAME = "java-starter";

    /**
     * Your strategy: the move to play, one of view.legal() (never fewer than two entries).
     * This one plays the move that scores most now; on a tie, the heaviest tile; then the first.
     */
    static Choice choose(View view) {
        Choice best = view.legal().get(0);
        for (Choice choice : view.legal()) {
            boolean better = choice.points() > best.points()
                    || (choice.points() == best.points() && choice.tile().pips() > best.tile().pips());
            if (better) {
                best = choice;
            }
        }
        return best;
    }

    // ---- The view, in Java's types (protocol.md, "The view") --------------------------------

    /** A tile, smaller number first. */
    record Tile(int low, int high) {
        int pips() {
            return low + high;
        }

        boolean isDouble() {
            return low == high;
        }

        boolean has(int number) {
            return low == number || high == number;
        }
    }

    /** A legal move: the tile, the end (null for a lead), and the sum and points after it. */
    record Choice(Tile tile, String end, int sum, int points) {}

    /** An open end: its name, the number a tile must show there, what it adds to the sum. */
    record OpenEnd(String end, int number, int counts) {}

    /** A tile on the table and the end it went on (null for the lead). */
    record Placement(Tile tile, String end) {}

    /**
     * An event of the hand: type "play" (tile, end, sum, points), "draw" (tile: null when
     * another seat drew) or "pass".
     */
    record Seen(String type, int seat, Tile tile, String end, int sum, int points) {}

    /** The rule options (docs/rules.md). */
    record Rules(int players, boolean teams, int handSize, String spinner, String handEnd,
            int target, String finish, int maxHands) {}

    /** Everything the seat may know (forced: null, or the drawn tile that must be played). */
    record View(int seat, Rules rules, int game, int handNumber, int leader, int turn,
            List<Tile> hand, List<Tile> drawn, Tile forced, List<Placement> layout,
            List<OpenEnd> ends, int sum, List<Integer> handSizes, int boneyard,
            List<Integer> scores, List<Seen> history, List<Choice> legal) {}

    // ---- The conversation ---------------------------------------------------------------------

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> message = Json.object(Json.parse(line));
            String type = Json.string(message.get("type"));
            long id = message.containsKey("id") ? Json.integer(message.get("id")) : 0;
            switch (type) {
                case "hello" -> send(out, "{\"type\":\"hello\",\"id\":" + id + ",\"name\":" + Json.quote(NAME) + "}");
                case "turn" -> {
                    Choice choice = choose(view(Json.object(message.get("view"))));
                    Tile tile = choice.tile();
                    String end = choice.end() == null ? "null" : Json.quote(choice.end());
                    send(out, "{\"type\":\"move\",\"id\":" + id + ",\"tile\":[" + tile.low() + ","
                            + tile.high() + "],\"end\":" + end + "}");
                }
                case "bye" -> {
                    return;
                }
                default -> {
                    // game_start, hand_start, event, hand_end, game_end, and any type added
                    // later: nothing to answer.
                }
            }
        }
    }

    static void send(PrintStream out, String line) {
        out.print(line);
        out.print('\n');
        out.flush(); // an answer left in a buffer is never read: the clock runs on
    }

    // ---- From JSON to the types above ---------------------------------------------------------

    static View view(Map<String, Object> v) {
        return new View(
                integer(v, "seat"), rules(Json.object(v.get("rules"))), integer(v, "game"),
                integer(v, "hand_number"), integer(v, "leader"), integer(v, "turn"),
                list(v.get("hand"), StarterBot::tile), list(v.get("drawn"), StarterBot::tile),
                v.get("forced") == null ? null : tile(v.get("forced")),
                list(v.get("layout"), p -> new Placement(tile(Json.object(p).get("tile")),
                        Json.optionalString(Json.object(p).get("end")))),
                list(v.get("ends"), e -> new OpenEnd(Json.string(Json.object(e).get("end")),
                        integer(Json.object(e), "number"), integer(Json.object(e), "counts"))),
                integer(v, "sum"), list(v.get("hand_sizes"), n -> (int) Json.integer(n)),
                integer(v, "boneyard"), list(v.get("scores"), n -> (int) Json.integer(n)),
                list(v.get("history"), StarterBot::seen), list(v.get("legal"), StarterBot::choice));
    }

    static Rules rules(Map<String, Object> r) {
        return new Rules(integer(r, "players"), Boolean.TRUE.equals(r.get("teams")),
                integer(r, "hand_size"), Json.string(r.get("spinner")), Json.string(r.get("hand_end")),
                integer(r, "target"), Json.string(r.get("finish")), integer(r, "max_hands"));
    }

    static Choice choice(Object value) {
        Map<String, Object> c = Json.object(value);
        return new Choice(tile(c.get("tile")), Json.optionalString(c.get("end")),
                integer(c, "sum"), integer(c, "points"));
    }

    static Seen seen(Object value) {
        Map<String, Object> e = Json.object(value);
        Object tile = e.get("tile");
        return new Seen(Json.string(e.get("type")), integer(e, "seat"), tile == null ? null : tile(tile),
                Json.optionalString(e.get("end")), integer(e, "sum"), integer(e, "points"));
    }

    static Tile tile(Object value) {
        List<Object> pair = Json.array(value);
        int a = (int) Json.integer(pair.get(0));
        int b = (int) Json.integer(pair.get(1));
        return new Tile(Math.min(a, b), Math.max(a, b));
    }

    /** An integer field; 0 when absent or null (as `turn` between hands). */
    static int integer(Map<String, Object> object, String key) {
        Object value = object.get(key);
        return value == null ? 0 : (int) Json.integer(value);
    }

    static <T> List<T> list(Object value, Function<Object, T> read) {
        List<T> items = new ArrayList<>();
        if (value != null) {
            for (Object item : Json.array(value)) {
                items.add(read.apply(item));
            }
        }
        return items;
    }

    // ---- A small JSON reader: objects become Maps, arrays Lists, numbers Long or Double ------

    static final class Json {
        private final String text;
        private int at;

        private Json(String text) {
            this.text = text;
        }

        /** The value of a whole line of JSON. */
        static Object parse(String text) {
            Json reader = new Json(text);
            Object value = reader.value();
            reader.skipSpace();
            if (reader.at != text.length()) {
                throw reader.error("text after the value");
            }
            return value;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(Object value) {
            return (Map<String, Object>) value;
        }

        @SuppressWarnings("unchecked")
        static List<Object> array(Object value) {
            return (List<Object>) value;
        }

        static String string(Object value) {
            return (String) value;
        }

        static String optionalString(Object value) {
            return value == null ? null : (String) value;
        }

        static long integer(Object value) {
            return ((Number) value).longValue();
        }

        /** A string as a JSON string literal. */
        static String quote(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            return b.append('"').toString();
        }

        private Object value() {
            skipSpace();
            if (at >= text.length()) {
                throw error("a value is missing");
            }
            char c = text.charAt(at);
            switch (c) {
                case '{':
                    return readObject();
                case '[':
                    return readArray();
                case '"':
                    return readString();
                case 't':
                    return word("true", Boolean.TRUE);
                case 'f':
                    return word("false", Boolean.FALSE);
                case 'n':
                    return word("null", null);
                default:
                    return readNumber();
            }
        }

        private Map<String, Object> readObject() {
            Map<String, Object> map = new LinkedHashMap<>();
            at++;
            skipSpace();
            if (peek() == '}') {
                at++;
                return map;
            }
            while (true) {
                skipSpace();
                String key = readString();
                skipSpace();
                expect(':');
                map.put(key, value());
                skipSpace();
                if (peek() == ',') {
                    at++;
                } else {
                    expect('}');
                    return map;
                }
            }
        }

        private List<Object> readArray() {
            List<Object> list = new ArrayList<>();
            at++;
            skipSpace();
            if (peek() == ']') {
                at++;
                return list;
            }
            while (true) {
                list.add(value());
                skipSpace();
                if (peek() == ',') {
                    at++;
                } else {
                    expect(']');
                    return list;
                }
            }
        }

        private String readString() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                if (at >= text.length()) {
                    throw error("a string is not closed");
                }
                char c = text.charAt(at++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> b.append(e); // \" \\ \/
                }
            }
        }

        private Object readNumber() {
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            String number = text.substring(start, at);
            if (number.isEmpty()) {
                throw error("unexpected character");
            }
            boolean whole = number.indexOf('.') < 0 && number.indexOf('e') < 0 && number.indexOf('E') < 0;
            return whole ? (Object) Long.parseLong(number) : (Object) Double.parseDouble(number);
        }

        private Object word(String word, Object value) {
            if (!text.startsWith(word, at)) {
                throw error("unexpected word");
            }
            at += word.length();
            return value;
        }

        private void skipSpace() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private char peek() {
            return at < text.length() ? text.charAt(at) : '\0';
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            at++;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("JSON: " + what + " at character " + at + " of: " + text);
        }
    }
}
