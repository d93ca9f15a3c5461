package io.backpressure.core.internal;

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
}
