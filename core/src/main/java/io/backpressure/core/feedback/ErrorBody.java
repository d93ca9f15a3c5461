package io.backpressure.core.feedback;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads a provider's JSON error body (its error {@code type}, {@code {"error": {"type": "tokens"}}}
 * as OpenAI writes it or a top-level {@code "type"}, and the members {@link ProviderSignals} reads
 * for the other providers), with a strict JSON reader (RFC 8259) of its own so that the core needs
 * no JSON library. Anything that is not one JSON value — trailing text, a bad escape, nesting
 * deeper than {@value #MAX_DEPTH} — is not a body it reads. Stateless and thread-safe.
 */
final class ErrorBody {
  /** Deeper nesting is refused rather than read by recursion without bound. */
  static final int MAX_DEPTH = 64;

  private ErrorBody() {}

  /**
   * The error type an error body names: {@code error.type} when it is a string, else a top-level
   * {@code type} string; null when it names none.
   */
  static @Nullable String errorType(Json root) {
    Json type = root.path("error").path("type");
    if (!type.isTextual()) {
      type = root.path("type");
    }
    return type.isTextual() ? type.asText() : null;
  }

  /**
   * The JSON object {@code body} is, for {@link ProviderSignals} to read the providers' error
   * bodies; null when it is JSON but not an object.
   *
   * @throws IllegalArgumentException when {@code body} is not one JSON value
   */
  static @Nullable Json object(String body) {
    Object root = new Reader(body).document();
    return root instanceof Map<?, ?> ? new Json(root) : null;
  }

  /**
   * A value read from an error body, navigated by name: a missing member, or a member of a value
   * that is not an object, is an empty {@code Json}, so a path through absent members reads as
   * absent rather than failing. Iterating yields an array's items (none for anything else).
   */
  record Json(@Nullable Object value) implements Iterable<Json> {
    /** The member {@code name} of this object; empty when there is none. */
    Json path(String name) {
      return new Json(value instanceof Map<?, ?> members ? members.get(name) : null);
    }

    /** Whether this is a string. */
    boolean isTextual() {
      return value instanceof String;
    }

    /** This string, or {@code otherwise} when it is not one. */
    String asText(String otherwise) {
      return value instanceof String text ? text : otherwise;
    }

    /** This string, or the empty string when it is not one. */
    String asText() {
      return asText("");
    }

    @Override
    public java.util.Iterator<Json> iterator() {
      return value instanceof List<?> items
          ? items.stream().map(Json::new).iterator()
          : java.util.Collections.emptyIterator();
    }
  }

  /**
   * A JSON value is a {@code Map}, {@code List}, {@code String}, {@code Boolean}, number or null.
   */
  private static final class Reader {
    private static final Object NULL = new Object();
    private final String text;
    private int at;

    Reader(String text) {
      this.text = text;
    }

    @Nullable Object document() {
      Object value = value(0);
      space();
      if (at != text.length()) {
        throw fail("text after the value");
      }
      return value == NULL ? null : value;
    }

    private Object value(int depth) {
      if (depth > MAX_DEPTH) {
        throw fail("nesting deeper than " + MAX_DEPTH);
      }
      space();
      if (at >= text.length()) {
        throw fail("a value is missing");
      }
      char c = text.charAt(at);
      return switch (c) {
        case '{' -> object(depth);
        case '[' -> array(depth);
        case '"' -> string();
        case 't' -> word("true", true);
        case 'f' -> word("false", false);
        case 'n' -> word("null", NULL);
        default -> number();
      };
    }

    private Map<String, Object> object(int depth) {
      Map<String, Object> members = new LinkedHashMap<>();
      at++;
      space();
      if (peek('}')) {
        at++;
        return members;
      }
      while (true) {
        space();
        if (!peek('"')) {
          throw fail("a member name must be a string");
        }
        String name = string();
        space();
        expect(':');
        members.put(name, value(depth + 1));
        space();
        if (peek(',')) {
          at++;
        } else {
          expect('}');
          return members;
        }
      }
    }

    private List<Object> array(int depth) {
      List<Object> items = new ArrayList<>();
      at++;
      space();
      if (peek(']')) {
        at++;
        return items;
      }
      while (true) {
        items.add(value(depth + 1));
        space();
        if (peek(',')) {
          at++;
        } else {
          expect(']');
          return items;
        }
      }
    }

    private String string() {
      at++;
      StringBuilder out = new StringBuilder();
      while (at < text.length()) {
        char c = text.charAt(at++);
        if (c == '"') {
          return out.toString();
        }
        if (c < 0x20) {
          throw fail("a control character in a string");
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (at >= text.length()) {
          break;
        }
        char e = text.charAt(at++);
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (at + 4 > text.length()) {
              throw fail("a short \\u escape");
            }
            try {
              out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            } catch (NumberFormatException notHex) {
              throw fail("a \\u escape that is not hexadecimal");
            }
            at += 4;
          }
          default -> throw fail("an unknown escape");
        }
      }
      throw fail("an unterminated string");
    }

    private Object number() {
      int start = at;
      if (peek('-')) {
        at++;
      }
      int digits = digits();
      if (digits == 0 || (digits > 1 && text.charAt(at - digits) == '0')) {
        throw fail("not a JSON value");
      }
      if (peek('.')) {
        at++;
        if (digits() == 0) {
          throw fail("a fraction without digits");
        }
      }
      if (peek('e') || peek('E')) {
        at++;
        if (peek('+') || peek('-')) {
          at++;
        }
        if (digits() == 0) {
          throw fail("an exponent without digits");
        }
      }
      return Double.parseDouble(text.substring(start, at));
    }

    private int digits() {
      int start = at;
      while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
        at++;
      }
      return at - start;
    }

    private Object word(String word, Object value) {
      if (!text.startsWith(word, at)) {
        throw fail("not a JSON value");
      }
      at += word.length();
      return value;
    }

    private void space() {
      while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
        at++;
      }
    }

    private boolean peek(char c) {
      return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
      if (!peek(c)) {
        throw fail("'" + c + "' expected");
      }
      at++;
    }

    /** An error that says what and where, never quoting the body. */
    private IllegalArgumentException fail(String what) {
      return new IllegalArgumentException("not JSON: " + what + " at offset " + at);
    }
  }
}
