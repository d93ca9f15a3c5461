package io.backpressure.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * What {@link Redaction} claims, over generated credentials: a URL it {@linkplain Redaction#url
 * masks} shows no part of its user name or password, and a text it {@linkplain Redaction#scrub
 * scrubs} shows none either — the text quoting the URL, its credentials raw or percent-decoded, and
 * the pieces a parser splits them into — whatever characters the password holds, written raw or
 * percent-encoded, in every shape of URL, well-formed or not. The one exception is a URL without a
 * scheme whose user name begins like one (letters, then {@code ://}): that is its scheme.
 *
 * <p>User names and passwords are words of {@code Q[JKVXZ]{3,8}} (in no URL or message otherwise)
 * joined by one to three characters that URL parsers treat apart, or by {@code ://}; an output
 * fails if it shows any one word.
 */
class RedactionPropertiesTest {

  /** Every printable ASCII character that is not a letter or a digit. */
  private static final String SPECIALS = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

  /** URL shapes; {@code %s} is the user information (user name, colon, password). */
  private static final List<String> SHAPES =
      List.of(
          "redis://%s@127.0.0.1:6379",
          "redis://%s@127.0.0.1:6379/0",
          "rediss://%s@redis.internal:6380",
          "redis-sentinel://%s@127.0.0.1:26379/0#mymaster",
          "redis://%s@127.0.0.1:notaport",
          "redis://%s@127.0.0.1:6379?timeout=soon",
          "redis://%s@",
          "redis://%s@[::1",
          "redis://%s @127.0.0.1:6379",
          "%s@127.0.0.1:6379",
          "%s@");

  private static final Pattern SCHEME_FIRST = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://");

  /** Characters a parser splits a URL at when it quotes a piece of it in an error. */
  private static final String SPLITS = "[^A-Za-z0-9._~!$&'()*+,;=-]+";

  /** A user name or password, and the words in it that must never be printed. */
  record Secret(String raw, List<String> words) {
    String encoded() {
      StringBuilder out = new StringBuilder();
      for (byte b : raw.getBytes(StandardCharsets.UTF_8)) {
        char c = (char) (b & 0xff);
        if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~".indexOf(c) >= 0)) {
          out.append(c);
        } else {
          out.append('%').append(String.format("%02X", b & 0xff));
        }
      }
      return out.toString();
    }
  }

  /** How the credentials are written in the URL. */
  record Credentials(Secret user, Secret password, boolean withUser, boolean encoded) {
    String userInfo() {
      String pass = encoded ? password.encoded() : password.raw();
      return withUser ? (encoded ? user.encoded() : user.raw()) + ":" + pass : ":" + pass;
    }

    List<String> words() {
      List<String> words = new ArrayList<>(password.words());
      if (withUser) {
        words.addAll(user.words());
      }
      return words;
    }
  }

  @Provide
  Arbitrary<Credentials> credentials() {
    Arbitrary<Boolean> flag = Arbitraries.of(true, false);
    return Combinators.combine(secrets(), secrets(), flag, flag).as(Credentials::new);
  }

  private static Arbitrary<Secret> secrets() {
    Arbitrary<String> word =
        Arbitraries.strings().withChars("JKVXZ").ofMinLength(3).ofMaxLength(8).map(w -> "Q" + w);
    Arbitrary<String> glue =
        Arbitraries.oneOf(
            Arbitraries.strings().withChars(SPECIALS).ofMinLength(1).ofMaxLength(3),
            Arbitraries.of("://", "@", "%", "%2", "%zz", ":"));
    return word.list()
        .ofMinSize(1)
        .ofMaxSize(4)
        .flatMap(
            words ->
                glue.list()
                    .ofSize(words.size() - 1)
                    .map(
                        glues -> {
                          StringBuilder raw = new StringBuilder(words.get(0));
                          for (int i = 1; i < words.size(); i++) {
                            raw.append(glues.get(i - 1)).append(words.get(i));
                          }
                          return new Secret(raw.toString(), words);
                        }));
  }

  @Property(tries = 500)
  void aMaskedUrlShowsNoCredential(
      @ForAll("credentials") Credentials credentials, @ForAll("shapes") String shape) {
    Assume.that(!readsAsAScheme(shape, credentials));
    String url = String.format(shape, credentials.userInfo());
    assertShowsNone(credentials, Redaction.url(url), url);
  }

  @Property(tries = 500)
  void aScrubbedTextShowsNoCredential(
      @ForAll("credentials") Credentials credentials, @ForAll("shapes") String shape) {
    Assume.that(!readsAsAScheme(shape, credentials));
    String url = String.format(shape, credentials.userInfo());
    assertShowsNone(credentials, Redaction.scrub(quoting(url, credentials), url), url);
  }

  @Example
  void aUserNameThatReadsAsASchemeIsOneAndIsShown() {
    // No URL parser, and no redaction, can tell this user name from a scheme.
    assertThat(Redaction.url("QJJJ://QKKK:QPPP@127.0.0.1:6379"))
        .isEqualTo("QJJJ://***@127.0.0.1:6379");
  }

  /**
   * Whether the URL has no scheme of its own but its user name starts with one: letters, then
   * {@code ://}. RFC 3986 reads that as the URL's scheme, and so does {@link Redaction}.
   */
  private static boolean readsAsAScheme(String shape, Credentials credentials) {
    return shape.startsWith("%s") && SCHEME_FIRST.matcher(credentials.userInfo()).lookingAt();
  }

  @Example
  void aPasswordHolding_schemeSlashSlash_inAUrlWithoutAScheme() {
    String url = "app:QJJJ://QKKK@127.0.0.1:6379";
    assertThat(Redaction.url(url)).isEqualTo("***@127.0.0.1:6379");
    assertThat(Redaction.scrub("bad URL " + url + ": QJJJ", url))
        .isEqualTo("bad URL ***@127.0.0.1:6379: ***");
  }

  @Example
  void aPieceOfTheDecodedPasswordThatAParserQuotedIsMasked() {
    String url = "redis://:QJJJ%2FQKKK@127.0.0.1:6379";
    assertThat(Redaction.scrub("For input string: \"QKKK\"", url))
        .isEqualTo("For input string: \"***\"");
  }

  @Provide
  Arbitrary<String> shapes() {
    return Arbitraries.of(SHAPES);
  }

  /**
   * A text as errors and logs print one: the URL itself, then the credentials as written and as
   * decoded, and each piece of the URL, written and decoded, that a parser could quote.
   */
  private static String quoting(String url, Credentials credentials) {
    List<String> parts = new ArrayList<>();
    parts.add("--redis " + url + " failed");
    parts.add("WRONGPASS for " + credentials.userInfo());
    parts.add("password " + credentials.password().raw());
    if (credentials.withUser()) {
      parts.add("user " + credentials.user().raw());
    }
    for (String form : List.of(url, decoded(url))) {
      for (String piece : form.split(SPLITS)) {
        parts.add("For input string: \"" + piece + "\"");
      }
    }
    return String.join("\n", parts);
  }

  private static String decoded(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException malformed) {
      return text;
    }
  }

  private static void assertShowsNone(Credentials credentials, String printed, String url) {
    for (String word : credentials.words()) {
      assertThat(printed).as("printed for %s", url).doesNotContain(word);
    }
  }
}
