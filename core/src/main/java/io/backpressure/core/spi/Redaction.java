package io.backpressure.core.spi;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Keeps credentials out of everything the project prints: reports, logs, error messages, {@code
 * toString}s. A connection URL's credentials are everything between its scheme's {@code ://} (or
 * its start, when it has no scheme) and its last {@code @}, so a password containing {@code @},
 * {@code /}, {@code ://} or spaces is masked whole, even in a URL too malformed to parse. (A URL
 * without a scheme whose user name begins like one, letters and {@code ://}, has that scheme: no
 * parser reads it otherwise.)
 *
 * <p>Backend SPI ({@linkplain io.backpressure.core.spi the package} says what that promises): a
 * backend passes every URL it shows through {@link #url} and every message that may quote one
 * through {@link #scrub}. Stateless and thread-safe.
 */
public final class Redaction {
  /** What stands in for a secret. */
  public static final String MASK = "***";

  /** A URL scheme (RFC 3986, section 3.1). */
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*");

  /** The characters a URL parser may split credentials at: all but those RFC 3986 allows raw. */
  private static final Pattern PARSER_SPLITS = Pattern.compile("[^A-Za-z0-9._~!$&'()*+,;=-]+");

  private Redaction() {}

  /** {@code url} with its user name and password masked: {@code redis://***@host:6379}. */
  public static @Nullable String url(@Nullable String url) {
    if (url == null) {
      return null;
    }
    int at = url.lastIndexOf('@');
    if (at < 0) {
      return url;
    }
    return url.substring(0, userInfoStart(url, at)) + MASK + url.substring(at);
  }

  /**
   * The credentials of {@code url} as written (between its scheme's {@code ://} and its last
   * {@code @}), or {@code null} when it has no {@code @}.
   */
  public static @Nullable String userInfo(String url) {
    int at = url.lastIndexOf('@');
    return at < 0 ? null : url.substring(userInfoStart(url, at), at);
  }

  /**
   * Whether {@code userInfo} is written as RFC 3986 allows, so that a URL parser splits the URL
   * where its last {@code @} is: only letters, digits, {@code -._~!$&'()*+,;=:} and {@code %}
   * followed by two hexadecimal digits. A password with {@code /}, {@code @}, {@code ?}, {@code #},
   * {@code [}, a space or any other character must be percent-encoded ({@code /} as {@code %2F}),
   * or a parser takes part of it for the host, the port or the path — and quotes that part in its
   * error.
   */
  public static boolean isEncodedUserInfo(String userInfo) {
    for (int i = 0; i < userInfo.length(); i++) {
      char c = userInfo.charAt(i);
      if (c == '%') {
        if (i + 2 >= userInfo.length()
            || Character.digit(userInfo.charAt(i + 1), 16) < 0
            || Character.digit(userInfo.charAt(i + 2), 16) < 0) {
          return false;
        }
        i += 2;
      } else if (!(c < 0x80
          && (Character.isLetterOrDigit(c) || "-._~!$&'()*+,;=:".indexOf(c) >= 0))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Where the credentials of {@code url}, whose last {@code @} is at {@code at}, begin: after its
   * scheme's {@code ://}, or at its start when it has no scheme (a {@code ://} inside a password is
   * not one: a scheme is a letter followed by letters, digits, {@code +}, {@code -} and {@code .}).
   */
  private static int userInfoStart(String url, int at) {
    int scheme = url.indexOf("://");
    return scheme >= 0 && scheme < at && SCHEME.matcher(url.substring(0, scheme)).matches()
        ? scheme + 3
        : 0;
  }

  /**
   * {@code text} (an error message, a command line, a report) with the credentials of {@code url}
   * masked wherever they occur, raw or percent-decoded, whole or the pieces a parser splits them
   * into at {@code /}, {@code @}, {@code :}, {@code ?} and the like, and the URL itself shown
   * {@linkplain #url(String) redacted}. Outside the URL, secrets shorter than three characters are
   * left alone (masking every "a" would garble the text); inside it they are masked like any other.
   */
  public static String scrub(String text, String url) {
    if (text == null || url == null) {
      return text;
    }
    String result = text.replace(url, url(url));
    for (String secret : secretsOf(url)) {
      result = result.replace(secret, MASK);
    }
    return result;
  }

  /**
   * The user information of {@code url}, its password part and the pieces between the characters a
   * URL parser may split at, each raw and decoded, and the pieces of the decoded user information
   * (longest first).
   */
  private static List<String> secretsOf(String url) {
    List<String> secrets = new ArrayList<>();
    String userInfo = userInfo(url);
    if (userInfo == null) {
      return secrets;
    }
    int colon = userInfo.indexOf(':');
    String password = colon >= 0 ? userInfo.substring(colon + 1) : userInfo;
    List<String> forms = new ArrayList<>(List.of(userInfo, password));
    // A parser that split the URL inside the credentials, before or after decoding them, quotes a
    // piece of them.
    forms.addAll(List.of(PARSER_SPLITS.split(userInfo)));
    String decoded = decoded(userInfo);
    if (decoded != null) {
      forms.addAll(List.of(PARSER_SPLITS.split(decoded)));
    }
    for (String raw : forms) {
      if (raw.length() >= 3) {
        secrets.add(raw);
        String plain = decoded(raw);
        if (plain != null) {
          secrets.add(plain);
        }
      }
    }
    secrets.sort((a, b) -> b.length() - a.length());
    return secrets;
  }

  /** {@code text} percent-decoded, or null when it is not well-formed percent-encoding. */
  private static @Nullable String decoded(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException malformed) {
      return null;
    }
  }
}
