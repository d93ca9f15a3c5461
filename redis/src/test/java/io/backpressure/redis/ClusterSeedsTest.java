package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Cluster seeds in the configuration: forms, inherited credentials, and errors that name the seed.
 */
class ClusterSeedsTest {

  @Test
  void plainSeeds() {
    RedisGateConfig config =
        RedisGateConfig.builder()
            .cluster("127.0.0.1:7000", "redis-b.internal:7001", "[::1]:7002")
            .target("m")
            .build();
    assertThat(config.cluster()).isTrue();
    assertThat(config.clusterSeeds())
        .containsExactly(
            "redis://127.0.0.1:7000", "redis://redis-b.internal:7001", "redis://[::1]:7002");
    assertThat(config.url()).isEqualTo("redis://127.0.0.1:7000");
  }

  @Test
  void seedsTakeTheUrlsSchemeAndCredentials_andToStringMasksThem() {
    RedisGateConfig config =
        RedisGateConfig.builder("rediss://app:s3cret@ignored:6380/0")
            .cluster("10.0.0.1:7000", "10.0.0.2:7000")
            .target("m")
            .build();
    assertThat(config.clusterSeeds())
        .containsExactly(
            "rediss://app:s3cret@10.0.0.1:7000/0", "rediss://app:s3cret@10.0.0.2:7000/0");
    assertThat(config.toString()).doesNotContain("s3cret").contains("10.0.0.2:7000");
  }

  @Test
  void theOldFlagMakesTheUrlTheOneSeed() {
    RedisGateConfig config =
        RedisGateConfig.builder("redis://127.0.0.1:7000").cluster(true).target("m").build();
    assertThat(config.clusterSeeds()).containsExactly("redis://127.0.0.1:7000");
    assertThat(RedisGateConfig.builder("redis://127.0.0.1:6379").target("m").build().clusterSeeds())
        .isEmpty();
  }

  @Test
  void badSeedsAreErrorsNamingTheSeed() {
    for (String bad :
        new String[] {"127.0.0.1", "host:0", "host:65536", "host:port", " :7000", "a b:7000"}) {
      assertThatThrownBy(() -> RedisGateConfig.builder().cluster(bad).target("m").build())
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("clusterSeeds")
          .hasMessageContaining("[1, 65535]")
          .hasMessageContaining(bad);
    }
    assertThatThrownBy(() -> RedisGateConfig.builder().cluster())
        .hasMessageContaining("at least one seed");
    assertThatThrownBy(() -> RedisGateConfig.builder().target("m").build())
        .hasMessageContaining("url");
  }
}
