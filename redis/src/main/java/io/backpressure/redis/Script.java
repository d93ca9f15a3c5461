package io.backpressure.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script: its text (the resources named, concatenated) and its SHA-1, which is how Redis
 * names it in {@code EVALSHA}.
 */
record Script(String text, String sha) {

  /** The admission step: the shared bucket arithmetic, the guards, then admit.lua. */
  static final Script ADMIT = load("nested_buckets.lua", "guards.lua", "admit.lua");
  /** The release step: the shared bucket arithmetic, the guards, then release.lua. */
  static final Script RELEASE = load("nested_buckets.lua", "guards.lua", "release.lua");
  /** Writes a policy and its packed parameters. */
  static final Script APPLY = load("apply.lua");
  /** One worker's heartbeat; answers the number of live workers. */
  static final Script ALIVE = load("alive.lua");
  /** Reads the bucket levels. */
  static final Script LEVELS = load("levels.lua");
  /** Reads one queue's L3 bucket. */
  static final Script QUEUE = load("queue.lua");

  static Script load(String... resources) {
    StringBuilder text = new StringBuilder();
    for (String resource : resources) {
      try (InputStream in = Script.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("missing script resource " + resource);
        }
        text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    String body = text.toString();
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
      return new Script(body, HexFormat.of().formatHex(digest));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
