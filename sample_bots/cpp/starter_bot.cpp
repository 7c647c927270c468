// A starter kit for an All Fives bot in C++17: the standard library only, one file.
//
// It speaks protocol 1 (protocol.md): it reads one JSON object a line on stdin and answers
// `hello` and `turn` with one line on stdout, flushed at once. Each turn's view is read into
// C++ types (View, Choice, Tile, ...) by a small JSON reader at the bottom of the file: all that
// is left to write is choose(). As it is, it plays greedy (as builtin:greedy does).
//
// Build and check it, then play it:
//   g++ -std=c++17 -O2 -o starter_bot sample_bots/cpp/starter_bot.cpp
//   allfives check ./starter_bot
//   allfives match ./starter_bot builtin:greedy --games 10
//
// Log to std::cerr, never to std::cout: every line on stdout is read as a message.

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// ---- The view, in C++ types (protocol.md, "The view") ----------------------------------------

// A tile, smaller number first.
struct Tile {
    int low = 0;
    int high = 0;
    int pips() const { return low + high; }
    bool is_double() const { return low == high; }
    bool has(int number) const { return low == number || high == number; }
};

// A legal move: the tile, the end (none for a lead), and the sum and points after it.
struct Choice {
    Tile tile;
    std::optional<std::string> end;
    int sum = 0;
    int points = 0;
};

// An open end: its name, the number a tile must show there, what it adds to the sum.
struct OpenEnd {
    std::string end;
    int number = 0;
    int counts = 0;
};

// A tile on the table and the end it went on (none for the lead).
struct Placement {
    Tile tile;
    std::optional<std::string> end;
};

// An event of the hand: type "play" (tile, end, sum, points), "draw" (tile: none when another
// seat drew) or "pass".
struct Seen {
    std::string type;
    int seat = 0;
    std::optional<Tile> tile;
    std::optional<std::string> end;
    int sum = 0;
    int points = 0;
};

// The rule options (docs/rules.md).
struct Rules {
    int players = 2;
    bool teams = false;
    int hand_size = 0;
    std::string spinner, hand_end, finish;
    int target = 0;
    int max_hands = 0;
};

// Everything the seat may know (forced: none, or the drawn tile that must be played).
struct View {
    int seat = 0;
    Rules rules;
    int game = 0, hand_number = 0, leader = 0, turn = 0;
    std::vector<Tile> hand, drawn;
    std::optional<Tile> forced;
    std::vector<Placement> layout;
    std::vector<OpenEnd> ends;
    int sum = 0;
    std::vector<int> hand_sizes;
    int boneyard = 0;
    std::vector<int> scores;
    std::vector<Seen> history;
    std::vector<Choice> legal;
};

const char* const NAME = "cpp-starter";  // the name in the hello; results show it

// Your strategy: the move to play, one of view.legal (never fewer than two entries). This one
// plays the move that scores most now; on a tie, the heaviest tile; then the first listed.
Choice choose(const View& view) {
    Choice best = view.legal.front();
    for (const Choice& choice : view.legal) {
        bool better = choice.points > best.points ||
                      (choice.points == best.points && choice.tile.pips() > best.tile.pips());
        if (better) best = choice;
    }
    return best;
}

// ---- A small JSON reader ------------------------------------------------------------------------

struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<Json> items;                           // an array's values
    std::vector<std::pair<std::string, Json>> fields;  // an object's members, in order

    bool is_null() const { return kind == Kind::Null; }

    // A member of an object; null when absent.
    const Json& operator[](const std::string& key) const {
        static const Json none;
        for (const auto& field : fields)
            if (field.first == key) return field.second;
        return none;
    }

    int integer() const { return static_cast<int>(number); }
    std::int64_t int64() const { return static_cast<std::int64_t>(number); }

    static Json parse(const std::string& line) {
        std::size_t at = 0;
        Json value = read(line, at);
        skip_space(line, at);
        if (at != line.size()) fail(line, at, "text after the value");
        return value;
    }

   private:
    [[noreturn]] static void fail(const std::string& s, std::size_t at, const char* what) {
        throw std::runtime_error("JSON: " + std::string(what) + " at character " +
                                 std::to_string(at) + " of: " + s);
    }

    static void skip_space(const std::string& s, std::size_t& at) {
        while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r'))
            ++at;
    }

    static void expect(const std::string& s, std::size_t& at, char c) {
        skip_space(s, at);
        if (at >= s.size() || s[at] != c) fail(s, at, "unexpected character");
        ++at;
    }

    static Json read(const std::string& s, std::size_t& at) {
        skip_space(s, at);
        if (at >= s.size()) fail(s, at, "a value is missing");
        Json value;
        char c = s[at];
        if (c == '{') {
            value.kind = Kind::Object;
            ++at;
            skip_space(s, at);
            if (at < s.size() && s[at] == '}') return ++at, value;
            while (true) {
                skip_space(s, at);
                std::string key = read_string(s, at);
                expect(s, at, ':');
                value.fields.emplace_back(key, read(s, at));
                skip_space(s, at);
                if (at < s.size() && s[at] == ',') { ++at; continue; }
                expect(s, at, '}');
                return value;
            }
        }
        if (c == '[') {
            value.kind = Kind::Array;
            ++at;
            skip_space(s, at);
            if (at < s.size() && s[at] == ']') return ++at, value;
            while (true) {
                value.items.push_back(read(s, at));
                skip_space(s, at);
                if (at < s.size() && s[at] == ',') { ++at; continue; }
                expect(s, at, ']');
                return value;
            }
        }
        if (c == '"') {
            value.kind = Kind::String;
            value.text = read_string(s, at);
            return value;
        }
        for (const char* word : {"true", "false", "null"}) {
            std::string w(word);
            if (s.compare(at, w.size(), w) == 0) {
                at += w.size();
                value.kind = w == "null" ? Kind::Null : Kind::Bool;
                value.boolean = w == "true";
                return value;
            }
        }
        std::size_t start = at;
        while (at < s.size() && std::string("+-0123456789.eE").find(s[at]) != std::string::npos)
            ++at;
        if (at == start) fail(s, at, "unexpected character");
        value.kind = Kind::Number;
        value.number = std::strtod(s.substr(start, at - start).c_str(), nullptr);
        return value;
    }

    static std::string read_string(const std::string& s, std::size_t& at) {
        if (at >= s.size() || s[at] != '"') fail(s, at, "expected a string");
        ++at;
        std::string out;
        while (true) {
            if (at >= s.size()) fail(s, at, "a string is not closed");
            char c = s[at++];
            if (c == '"') return out;
            if (c != '\\') { out += c; continue; }
            char e = s[at++];
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    // Enough for this protocol (names are the only free text): code points up to
                    // U+07FF are written back as UTF-8, others as '?'.
                    unsigned code = std::stoul(s.substr(at, 4), nullptr, 16);
                    at += 4;
                    if (code < 0x80) {
                        out += static_cast<char>(code);
                    } else if (code < 0x800) {
                        out += static_cast<char>(0xC0 | (code >> 6));
                        out += static_cast<char>(0x80 | (code & 0x3F));
                    } else {
                        out += '?';
                    }
                    break;
                }
                default: out += e;  // \" \\ \/
            }
        }
    }
};

// ---- From JSON to the types above -------------------------------------------------------------

Tile read_tile(const Json& j) {
    int a = j.items.at(0).integer(), b = j.items.at(1).integer();
    return Tile{a < b ? a : b, a < b ? b : a};
}

std::optional<std::string> read_end(const Json& j) {
    if (j.is_null()) return std::nullopt;
    return j.text;
}

template <typename T, typename F>
std::vector<T> read_list(const Json& j, F read) {
    std::vector<T> out;
    for (const Json& item : j.items) out.push_back(read(item));
    return out;
}

View read_view(const Json& v) {
    View view;
    view.seat = v["seat"].integer();
    const Json& r = v["rules"];
    view.rules = Rules{r["players"].integer(),   r["teams"].boolean,
                       r["hand_size"].integer(), r["spinner"].text,
                       r["hand_end"].text,       r["finish"].text,
                       r["target"].integer(),    r["max_hands"].integer()};
    view.game = v["game"].integer();
    view.hand_number = v["hand_number"].integer();
    view.leader = v["leader"].integer();
    view.turn = v["turn"].integer();
    view.hand = read_list<Tile>(v["hand"], read_tile);
    view.drawn = read_list<Tile>(v["drawn"], read_tile);
    if (!v["forced"].is_null()) view.forced = read_tile(v["forced"]);
    view.layout = read_list<Placement>(v["layout"], [](const Json& p) {
        return Placement{read_tile(p["tile"]), read_end(p["end"])};
    });
    view.ends = read_list<OpenEnd>(v["ends"], [](const Json& e) {
        return OpenEnd{e["end"].text, e["number"].integer(), e["counts"].integer()};
    });
    view.sum = v["sum"].integer();
    auto integer = [](const Json& n) { return n.integer(); };
    view.hand_sizes = read_list<int>(v["hand_sizes"], integer);
    view.boneyard = v["boneyard"].integer();
    view.scores = read_list<int>(v["scores"], integer);
    view.history = read_list<Seen>(v["history"], [](const Json& e) {
        Seen seen{e["type"].text, e["seat"].integer(), std::nullopt, read_end(e["end"]),
                  e["sum"].integer(), e["points"].integer()};
        if (!e["tile"].is_null()) seen.tile = read_tile(e["tile"]);
        return seen;
    });
    view.legal = read_list<Choice>(v["legal"], [](const Json& c) {
        return Choice{read_tile(c["tile"]), read_end(c["end"]), c["sum"].integer(),
                      c["points"].integer()};
    });
    return view;
}

// ---- The conversation ---------------------------------------------------------------------------

void send(const std::string& line) {
    // std::endl flushes: an answer left in a buffer is never read, and the clock runs on.
    std::cout << line << std::endl;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        Json message = Json::parse(line);
        const std::string& type = message["type"].text;
        std::string id = std::to_string(message["id"].int64());
        if (type == "hello") {
            send(std::string("{\"type\":\"hello\",\"id\":") + id + ",\"name\":\"" + NAME + "\"}");
        } else if (type == "turn") {
            Choice choice = choose(read_view(message["view"]));
            std::string end = choice.end ? "\"" + *choice.end + "\"" : "null";
            send("{\"type\":\"move\",\"id\":" + id + ",\"tile\":[" + std::to_string(choice.tile.low) +
                 "," + std::to_string(choice.tile.high) + "],\"end\":" + end + "}");
        } else if (type == "bye") {
            break;
        }
        // game_start, hand_start, event, hand_end, game_end, and any type added later: nothing
        // to answer.
    }
    return 0;
}
