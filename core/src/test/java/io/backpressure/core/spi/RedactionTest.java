package io.backpressure.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedactionTest {

  @Test
  void urlsLoseEverythingBeforeTheirLastAt() {
    assertThat(Redaction.url("redis://:s3cret@host:6379/0")).isEqualTo("redis://***@host:6379/0");
    assertThat(Redaction.url("rediss://app:p@ss/w0rd@redis.internal:6380"))
        .isEqualTo("rediss://***@redis.internal:6380");
    assertThat(Redaction.url("redis://:pa ss word @host")).isEqualTo("redis://***@host");
    assertThat(Redaction.url("user:secret@host")).isEqualTo("***@host");
    assertThat(Redaction.url("redis://host:6379")).isEqualTo("redis://host:6379");
  }

  @Test
  void textLosesTheUrlsCredentialsWhereverTheyAppear_rawOrDecoded() {
    String url = "redis://app:Pa55%2Fword@host:6379";
    String text = "--redis " + url + " failed: WRONGPASS for app:Pa55%2Fword (password Pa55/word)";
    assertThat(Redaction.scrub(text, url))
        .doesNotContain("Pa55")
        .contains("--redis redis://***@host:6379", "WRONGPASS");
  }

  @Test
  void aPieceOfThePasswordThatAParserQuotedIsMaskedToo() {
    String url = "redis://app:Pa55/w0rd?x@host:6379";
    assertThat(Redaction.scrub("For input string: \"w0rd?x@host:6379\" (Pa55)", url))
        .isEqualTo("For input string: \"***?x@host:6379\" (***)");
  }

  @Test
  void userInfoIsWhatPrecedesTheLastAt_andEncodedOnlyWithTheCharactersRfc3986Allows() {
    assertThat(Redaction.userInfo("redis://app:p@ss@host")).isEqualTo("app:p@ss");
    assertThat(Redaction.userInfo("redis://host:6379")).isNull();
    assertThat(Redaction.isEncodedUserInfo("app:Pa55%2Fw0rd-._~!$&'()*+,;=:")).isTrue();
    for (String bad :
        new String[] {"p/ss", "p@ss", "p?ss", "p#ss", "p ss", "p[ss", "p%2", "p%zz", "pé"}) {
      assertThat(Redaction.isEncodedUserInfo(bad)).as(bad).isFalse();
    }
  }
}
