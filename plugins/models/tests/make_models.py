"""make_models.py OUT_DIR — writes the real model files the models tests
register (Debian's scikit-learn, xgboost and torch, /usr/bin/python3):
  iris.pkl          a LogisticRegression on iris, pickled
  iris.joblib       the same, joblib with zlib compression
  xgb.json/xgb.ubj  an XGBClassifier's booster, JSON and UBJSON
  xgb.pkl           the sklearn-API XGBClassifier, pickled
  net.pt            a TorchScript module (torch.jit.save)
  net_state.pt      its state dict (torch.save, zip format)
  net_legacy.pt     the state dict in the legacy (non-zip) torch.save format
  net.onnx          the module exported to ONNX
  net.py            the module's class (for a state dict)
and prints a JSON object of what each file is for the test to read."""
import json
import os
import pickle
import sys

import joblib
import numpy as np
import torch
import xgboost
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression

NET_PY = '''import torch


class Net(torch.nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.a = torch.nn.Linear(4, hidden)
        self.b = torch.nn.Linear(hidden, 3)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))
'''


def main(out):
    os.makedirs(out, exist_ok=True)
    X, y = load_iris(return_X_y=True)
    lr = LogisticRegression(max_iter=500).fit(X, y)
    with open(os.path.join(out, "iris.pkl"), "wb") as f:
        pickle.dump(lr, f, protocol=4)
    joblib.dump(lr, os.path.join(out, "iris.joblib"), compress=3)
    xgb = xgboost.XGBClassifier(n_estimators=5, max_depth=2).fit(X, y)
    xgb.get_booster().save_model(os.path.join(out, "xgb.json"))
    xgb.get_booster().save_model(os.path.join(out, "xgb.ubj"))
    with open(os.path.join(out, "xgb.pkl"), "wb") as f:
        pickle.dump(xgb, f)
    with open(os.path.join(out, "net.py"), "w") as f:
        f.write(NET_PY)
    sys.path.insert(0, out)
    from net import Net
    torch.manual_seed(0)
    net = Net().eval()
    torch.jit.save(torch.jit.script(net), os.path.join(out, "net.pt"))
    torch.save(net.state_dict(), os.path.join(out, "net_state.pt"))
    torch.save(net.state_dict(), os.path.join(out, "net_legacy.pt"),
               _use_new_zipfile_serialization=False)
    torch.onnx.export(net, torch.randn(1, 4), os.path.join(out, "net.onnx"))
    probe = X[:2].tolist()
    print(json.dumps({"iris_predict": lr.predict(np.array(probe)).tolist(), "probe": probe}))


if __name__ == "__main__":
    main(sys.argv[1])
