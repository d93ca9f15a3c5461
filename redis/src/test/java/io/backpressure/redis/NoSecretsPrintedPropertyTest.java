package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * No password given in a Redis URL is printed, whole or in pieces, by the configuration's errors,
 * its {@code toString} or a failed connection — whatever the URL's shape (a bad port, database,
 * host, scheme or no host at all) and whatever characters the password holds, written raw or
 * percent-encoded. The passwords are words of {@code Q[JKVXZ]+} (found in no message otherwise)
 * joined by the characters that URL parsers split at; a message fails the test if it shows the
 * password, its encoded form or any one of its words.
 */
class NoSecretsPrintedPropertyTest {

  /** Every ASCII character that is not a letter or a digit: the ones URL parsers treat apart. */
  private static final String SPECIALS = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

  /** Every shape a mistyped or half-finished URL takes; {@code %s} is the password. */
  private static final List<String> SHAPES =
      List.of(
          "redis://:%s@127.0.0.1:6379",
          "redis://app:%s@127.0.0.1:6379/0",
          "rediss://app:%s@redis.internal:6380",
          "redis-sentinel://:%s@127.0.0.1:26379/0#mymaster",
          "redis://:%s@127.0.0.1:notaport",
          "redis://:%s@127.0.0.1:99999",
          "redis://:%s@127.0.0.1:6379/notadb",
          "redis://:%s@127.0.0.1:6379?timeout=soon",
          "redis://app:%s@",
          "redis://:%s@[::1",
          "redis://:%s @127.0.0.1:6379",
          "ftp://:%s@127.0.0.1:6379",
          "app:%s@127.0.0.1:6379");

  record Password(String raw, List<String> words) {
    String encoded() {
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < raw.length(); i++) {
        char c = raw.charAt(i);
        if (Character.isLetterOrDigit(c) || "-._~".indexOf(c) >= 0) {
          out.append(c);
        } else {
          out.append('%').append(String.format("%02X", (int) c));
        }
      }
      return out.toString();
    }
  }

  @Provide
  Arbitrary<Password> passwords() {
    Arbitrary<String> word = Arbitraries.strings().withChars("JKVXZ").ofMinLength(3).ofMaxLength(8);
    Arbitrary<String> glue =
        Arbitraries.strings().withChars(SPECIALS).ofMinLength(1).ofMaxLength(3);
    return word.map(w -> "Q" + w)
        .list()
        .ofMinSize(2)
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
                          return new Password(raw.toString(), words);
                        }));
  }

  @Property(tries = 1_000)
  void noConfigurationMessageShowsThePassword(@ForAll("passwords") Password password) {
    for (String shape : SHAPES) {
      for (String written : List.of(password.raw(), password.encoded())) {
        String url = String.format(shape, written);
        String printed = configure(url);
        Statistics.label("outcome").collect(printed.startsWith("url") ? "refused" : "built");
        assertNothingOf(password, printed, url);
      }
    }
  }

  @Example
  void everySpecialCharacterInEveryShape() {
    for (int i = 0; i < SPECIALS.length(); i++) {
      char c = SPECIALS.charAt(i);
      Password password = new Password("QXZJ" + c + "QKVJ", List.of("QXZJ", "QKVJ"));
      for (String shape : SHAPES) {
        for (String written : List.of(password.raw(), password.encoded())) {
          String url = String.format(shape, written);
          assertNothingOf(password, configure(url), url);
        }
      }
    }
  }

  @Example
  void aRawPasswordThatAParserWouldSplitIsRefusedAndTheEncodedOneIsTaken() {
    Password password = new Password("QXZJ/@?#QKVJ", List.of("QXZJ", "QKVJ"));
    assertThat(configure("redis://app:" + password.raw() + "@127.0.0.1:6379"))
        .startsWith("url's user name and password must be percent-encoded")
        .contains("redis://***@127.0.0.1:6379");
    assertThat(configure("redis://app:" + password.encoded() + "@127.0.0.1:6379"))
        .isEqualTo("built: " + expectedToString());
  }

  @Property(tries = 20)
  void aFailedConnectionDoesNotShowThePassword(@ForAll("passwords") Password password) {
    String url = "redis://app:" + password.encoded() + "@127.0.0.1:1";
    RedisGateConfig config =
        RedisGateConfig.builder(url)
            .target("t")
            .connectTimeout(Duration.ofMillis(500))
            .commandTimeout(Duration.ofMillis(500))
            .build();
    Throwable failure = catchThrowable(() -> RedisGate.connect(config).close());
    assertThat(failure).isNotNull();
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      assertNothingOf(password, String.valueOf(t.getMessage()), url);
      assertNothingOf(password, t.toString(), url);
    }
  }

  private static String expectedToString() {
    return RedisGateConfig.builder("redis://***@127.0.0.1:6379").target("t").build().toString();
  }

  /** The configuration's error message, or {@code "built: "} and its {@code toString}. */
  private static String configure(String url) {
    try {
      return "built: " + RedisGateConfig.builder(url).target("t").build();
    } catch (IllegalArgumentException e) {
      return String.valueOf(e.getMessage());
    }
  }

  private static void assertNothingOf(Password password, String printed, String url) {
    List<String> secrets = new ArrayList<>(password.words());
    secrets.add(password.raw());
    secrets.add(password.encoded());
    for (String secret : secrets) {
      assertThat(printed).as("printed for %s", url).doesNotContain(secret);
    }
  }
}
