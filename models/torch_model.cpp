/*
 * The TorchScript test models, written with LibTorch itself (the backend's own library),
 * so that no torch Python package is needed to make them: y = gain * x + bias, with
 * gain and bias as parameters (9.0.2's backend reads the device from the first one).
 *
 *   torch_model save GAIN BIAS FILE   write the scripted module to FILE
 *   torch_model run FILE              load FILE as 9.0.2's backend does, print its
 *                                     parameter count and its output for a fixed
 *                                     1x3x2x2 input (x = i / 12), one value a line
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <torch/script.h>

static const char *forward_source =
    "def forward(self, x):\n"
    "    return x * self.gain + self.bias\n";

static int save_model(float gain, float bias, const char *path)
{
    torch::jit::Module module("__torch__.Affine");

    module.register_parameter("gain", torch::full({1}, gain, torch::kFloat32), false);
    module.register_parameter("bias", torch::full({1}, bias, torch::kFloat32), false);
    module.define(forward_source);
    module.eval();
    module.save(path);
    return 0;
}

static int run_model(const char *path)
{
    torch::jit::Module module = torch::jit::load(path);
    std::vector<torch::jit::IValue> inputs;
    torch::NoGradGuard no_grad;
    size_t params = 0;

    for (const auto &p : module.parameters()) {
        (void)p;
        params++;
    }
    printf("parameters %zu\n", params);
    inputs.push_back(torch::arange(12, torch::kFloat32).reshape({1, 3, 2, 2}) / 12.0);
    torch::Tensor out = module.forward(inputs).toTensor().contiguous();
    printf("shape");
    for (auto d : out.sizes())
        printf(" %lld", (long long)d);
    printf("\n");
    const float *v = out.data_ptr<float>();
    for (int64_t i = 0; i < out.numel(); i++)
        printf("%.9g\n", v[i]);
    return 0;
}

int main(int argc, char **argv)
{
    try {
        if (argc == 5 && !strcmp(argv[1], "save"))
            return save_model(strtof(argv[2], NULL), strtof(argv[3], NULL), argv[4]);
        if (argc == 3 && !strcmp(argv[1], "run"))
            return run_model(argv[2]);
    } catch (const c10::Error &e) {
        fprintf(stderr, "error: %s\n", e.what_without_backtrace());
        return 1;
    }
    fprintf(stderr, "usage: %s save GAIN BIAS FILE | run FILE\n", argv[0]);
    return 2;
}
