#!/usr/bin/python3
"""Exports torchvision networks to ONNX for fusionplan's import tests.

Random weights (seeded), no downloads: torchvision 0.14 builds every model
with `weights=None`. Writes DIR/<name>.onnx for the 17 networks that have a
built-in twin in fusionplan (`fusionplan models`) and for the networks that
have none. Debian's python3-torch (1.13) and python3-torchvision (0.14):

    /usr/bin/python3 examples/onnx/export_torchvision.py /work/onnx-models
    /usr/bin/python3 examples/onnx/export_torchvision.py DIR resnet50 vit_b_16

Then `LF_ONNX_MODELS=DIR ctest -R onnx_twins` compares the twins op for op.
Existing files are kept unless --force is given.
"""
import argparse
import os
import sys

import torch
import torchvision

# name -> input resolution (the built-in twin's default input size)
TWINS = {
    "vgg16": 224,
    "squeezenet1_0": 224,
    "squeezenet1_1": 224,
    "resnet18": 224,
    "resnet34": 224,
    "resnet50": 224,
    "resnet101": 224,
    "resnet152": 224,
    "mobilenet_v2": 224,
    "mobilenet_v3_small": 224,
    "mobilenet_v3_large": 224,
    "efficientnet_b0": 224,
    "efficientnet_b3": 300,
    "inception_v3": 299,
    "resnext50_32x4d": 224,
    "deeplabv3_mobilenet_v3_large": 513,
    "vit_b_16": 224,
}

OTHERS = {
    "alexnet": 224,
    "googlenet": 224,
    "densenet121": 224,
    "shufflenet_v2_x1_0": 224,
    "mnasnet1_0": 224,
    "regnet_y_400mf": 224,
    "wide_resnet50_2": 224,
    "efficientnet_v2_s": 384,
    "convnext_tiny": 224,
    "swin_t": 224,
    "fcn_resnet50": 520,
    "lraspp_mobilenet_v3_large": 520,
}


class SegmentationOutput(torch.nn.Module):
    """Segmentation models return a dict; export its 'out' tensor only."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def build(name):
    if name.startswith(("deeplabv3", "fcn", "lraspp")):
        ctor = getattr(torchvision.models.segmentation, name)
        kwargs = {"weights": None, "weights_backbone": None}
        if not name.startswith("lraspp"):
            kwargs["aux_loss"] = False
        return SegmentationOutput(ctor(**kwargs))
    ctor = getattr(torchvision.models, name)
    kwargs = {"weights": None}
    if name in ("inception_v3", "googlenet"):
        kwargs.update(aux_logits=False, init_weights=True)
    return ctor(**kwargs)


def export(name, size, out_dir, opset, force):
    path = os.path.join(out_dir, name + ".onnx")
    if os.path.exists(path) and not force:
        print(f"{name}: kept {path}")
        return
    torch.manual_seed(0)
    model = build(name).eval()
    x = torch.randn(1, 3, size, size)
    tmp = path + ".tmp"
    # TrainingMode.PRESERVE on a model in eval mode keeps BatchNormalization
    # nodes (inference form) instead of letting the exporter fold them into
    # the convolutions, so fusionplan's importer does the folding (with the
    # model's epsilon) and knows the framework's parameter count. Gradients
    # stay enabled: with them off, nn.MultiheadAttention takes a fused fast
    # path (aten::_native_multi_head_attention) that torch 1.13 cannot export.
    torch.onnx.export(model, x, tmp, opset_version=opset, do_constant_folding=True,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["input"], output_names=["output"])
    os.replace(tmp, path)
    print(f"{name}: wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB, input 1x3x{size}x{size})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="output folder (created)")
    ap.add_argument("names", nargs="*", help="networks to export (default: all)")
    ap.add_argument("--opset", type=int, default=17, help="ONNX opset (default 17)")
    ap.add_argument("--force", action="store_true", help="overwrite existing files")
    args = ap.parse_args()
    table = dict(TWINS, **OTHERS)
    names = args.names or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        sys.exit(f"export_torchvision.py: unknown network(s): {', '.join(unknown)}")
    os.makedirs(args.dir, exist_ok=True)
    torch.set_num_threads(1)
    failed = []
    for n in names:
        try:
            export(n, table[n], args.dir, args.opset, args.force)
        except Exception as e:  # report every network, then fail
            print(f"{n}: export failed: {str(e).splitlines()[0]}")
            failed.append(n)
    if failed:
        sys.exit(f"export_torchvision.py: failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
