package io.backpressure.bedrock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAgainstTheMockProvider() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      ConverseResponse reply =
          ReadmeExample.ask(
              BedrockRuntimeClient.builder()
                  .region(Region.US_EAST_1)
                  .credentialsProvider(
                      StaticCredentialsProvider.create(
                          AwsBasicCredentials.create("AKIDEXAMPLE", "secret-example")))
                  .endpointOverride(URI.create(provider.url())));
      assertThat(reply.usage().totalTokens()).isPositive();
      assertThat(provider.records())
          .singleElement()
          .satisfies(r -> assertThat(r.status()).isEqualTo(200));
    }
  }

  @Test
  void theReadmeShowsTheExampleAsCompiled() throws Exception {
    assertThat(ReadmeSnippet.readme())
        .contains(ReadmeSnippet.of("src/test/java/io/backpressure/bedrock/ReadmeExample.java"));
  }
}
