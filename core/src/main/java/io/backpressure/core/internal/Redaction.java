package io.backpressure.core.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Keeps credentials out of everything the project prints: reports, logs, error messages, {@code
 * toString}s. A connection URL's credentials are everything between {@code ://} and its last
 * {@code @} (so a password containing {@code @}, {@code /} or spaces is masked whole, even in a URL
 * too malformed to parse).
 *
 * <p>Not API: shared by this project's modules, and may change in any release without notice.
 * Stateless and thread-safe.
 */
public final class Redaction {
  /** What stands in for a secret. */
  public static final String MASK = "***";

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
    int scheme = url.indexOf("://");
    int start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
    return url.substring(0, start) + MASK + url.substring(at);
  }

  /**
   * {@code text} (an error message, a command line, a report) with the credentials of {@code url}
   * masked wherever they occur, raw or percent-decoded, and the URL itself shown {@linkplain
   * #url(String) redacted}. Outside the URL, secrets shorter than three characters are left alone
   * (masking every "a" would garble the text); inside it they are masked like any other.
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

  /** The user information of {@code url} and its password part, raw and decoded (longest first). */
  private static List<String> secretsOf(String url) {
    List<String> secrets = new ArrayList<>();
    int at = url.lastIndexOf('@');
    if (at < 0) {
      return secrets;
    }
    int scheme = url.indexOf("://");
    String userInfo = url.substring(scheme >= 0 && scheme < at ? scheme + 3 : 0, at);
    int colon = userInfo.indexOf(':');
    String password = colon >= 0 ? userInfo.substring(colon + 1) : userInfo;
    for (String raw : List.of(userInfo, password)) {
      if (raw.length() >= 3) {
        secrets.add(raw);
        try {
          secrets.add(URLDecoder.decode(raw, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException malformed) {
          // Not percent-encoded; the raw form is masked.
        }
      }
    }
    secrets.sort((a, b) -> b.length() - a.length());
    return secrets;
  }
}
