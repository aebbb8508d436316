#!/usr/bin/env python3
"""Converter models for onnx-eval's ai.onnx.ml operators, with onnxruntime's outputs as goldens.

    pip install -r scripts/requirements-ml.txt
    python3 scripts/gen_ml_models.py            # rewrites onnx-eval/tests/data/ml/

Each model is made by skl2onnx or onnxmltools from a scikit-learn, XGBoost or LightGBM model
fitted on small seeded data, then run in onnxruntime. A model's folder holds `model.onnx`,
`input_<i>.pb` and `output_<i>.pb` in onnx's test-data layout (TensorProto, or SequenceProto of
MapProto for ZipMap outputs, or MapProto for a map input). `cargo test -p onnx-eval --test
converter_models` runs every folder through onnx-eval and compares with these outputs.

Sizes are kept small (few rows, few trees of small depth) so that the folder stays well under
2 MB; the forests of the speed benchmark are made by scripts/bench_eval.py, not committed.
"""
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "onnx-eval", "tests", "data", "ml")
# onnx 1.23.2's ai.onnx.ml is version 5; converters choose their own versions below it.
TARGET_OPSET = {"": 17, "ai.onnx.ml": 3}


def rng(seed=0):
    return np.random.RandomState(seed)


def classification(n_classes, n=80, features=5, seed=0):
    from sklearn.datasets import make_classification

    x, y = make_classification(
        n_samples=n,
        n_features=features,
        n_informative=min(features, 4),
        n_redundant=0,
        n_classes=n_classes,
        n_clusters_per_class=1,
        random_state=seed,
    )
    return x.astype(np.float32), y


def regression(n=80, features=5, seed=0):
    from sklearn.datasets import make_regression

    x, y = make_regression(n_samples=n, n_features=features, noise=0.5, random_state=seed)
    return x.astype(np.float32), y.astype(np.float32)


def string_labels(y):
    names = np.array(["cat", "dog", "eel", "fox", "gnu"])
    return names[y]


def float_input(n_features):
    from skl2onnx.common.data_types import FloatTensorType

    return [("X", FloatTensorType([None, n_features]))]


def sk(model, initial_types, zipmap=True, extra=None):
    from skl2onnx import to_onnx

    options = {}
    if not zipmap:
        options = {id(model): {"zipmap": False}}
    if extra:
        options.setdefault(id(model), {}).update(extra)
    return to_onnx(
        model,
        initial_types=initial_types,
        target_opset=TARGET_OPSET,
        options=options or None,
    )


def encode(value, name):
    """A value as onnx's test data writes it."""
    if isinstance(value, np.ndarray):
        return numpy_helper.from_array(value, name)
    if isinstance(value, dict):
        return map_proto(value, name)
    if isinstance(value, list):
        seq = onnx.SequenceProto(name=name, elem_type=onnx.SequenceProto.MAP)
        seq.map_values.extend(map_proto(m, "") for m in value)
        return seq
    raise TypeError(type(value))


def map_proto(m, name):
    keys = list(m.keys())
    proto = onnx.MapProto(name=name)
    if keys and isinstance(keys[0], str):
        proto.key_type = onnx.TensorProto.STRING
        proto.string_keys.extend(k.encode() for k in keys)
    else:
        proto.key_type = onnx.TensorProto.INT64
        proto.keys.extend(int(k) for k in keys)
    values = onnx.SequenceProto(elem_type=onnx.SequenceProto.TENSOR)
    for k in keys:
        v = m[k]
        dtype = np.float32 if isinstance(v, float) else np.asarray(v).dtype
        values.tensor_values.append(numpy_helper.from_array(np.array(v, dtype=dtype)))
    proto.values.CopyFrom(values)
    return proto


def save(name, model, feeds):
    """Runs `model` in onnxruntime (one thread) on `feeds` and writes the case."""
    for node in model.graph.node:
        # This machine has no en_US locale, which skl2onnx's StringNormalizer names.
        if node.op_type == "StringNormalizer":
            kept = [a for a in node.attribute if a.name != "locale"]
            del node.attribute[:]
            node.attribute.extend(kept + [helper.make_attribute("locale", "C.UTF-8")])
    session_options = ort.SessionOptions()
    session_options.intra_op_num_threads = 1
    session_options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), session_options, providers=["CPUExecutionProvider"]
    )
    names = [i.name for i in session.get_inputs()]
    outputs = session.run(None, dict(zip(names, feeds)))
    folder = os.path.join(OUT, name)
    os.makedirs(folder)
    model.doc_string = ""
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for i, (n, v) in enumerate(zip(names, feeds)):
        with open(os.path.join(folder, f"input_{i}.pb"), "wb") as f:
            f.write(encode(v, n).SerializeToString())
    for i, (o, v) in enumerate(zip(session.get_outputs(), outputs)):
        with open(os.path.join(folder, f"output_{i}.pb"), "wb") as f:
            f.write(encode(v, o.name).SerializeToString())
    ops = sorted({(n.domain or "ai.onnx") + ":" + n.op_type for n in model.graph.node})
    print(f"{name}: {', '.join(ops)}")


def with_nan(x, seed=1):
    """Some features missing, for the trees' missing-value tracks."""
    x = x.copy()
    mask = rng(seed).rand(*x.shape) < 0.15
    x[mask] = np.nan
    return x


def trees():
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    x2, y2 = classification(2)
    x3, y3 = classification(3, seed=1)
    xr, yr = regression()
    test2, test3, testr = x2[:20], x3[:20], xr[:20]

    m = DecisionTreeClassifier(max_depth=4, random_state=0).fit(x2, y2)
    save("dt_clf_binary_int", sk(m, float_input(5)), [test2])
    m = DecisionTreeClassifier(max_depth=4, random_state=0).fit(x3, string_labels(y3))
    save("dt_clf_multi_str", sk(m, float_input(5)), [test3])
    m = DecisionTreeClassifier(max_depth=4, random_state=0).fit(x3, string_labels(y3))
    save("dt_clf_multi_str_nozipmap", sk(m, float_input(5), zipmap=False), [test3])
    m = DecisionTreeRegressor(max_depth=4, random_state=0).fit(xr, yr)
    save("dt_reg", sk(m, float_input(5)), [testr])

    m = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(x3, y3)
    save("rf_clf_multi_int", sk(m, float_input(5)), [test3])
    save("rf_clf_multi_int_nozipmap", sk(m, float_input(5), zipmap=False), [test3])
    m = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(x2, string_labels(y2))
    save("rf_clf_binary_str", sk(m, float_input(5)), [test2])
    m = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=0).fit(xr, yr)
    save("rf_reg", sk(m, float_input(5)), [testr])

    m = ExtraTreesClassifier(n_estimators=4, max_depth=3, random_state=0).fit(x2, y2)
    save("et_clf_binary_int", sk(m, float_input(5)), [test2])
    m = ExtraTreesRegressor(n_estimators=4, max_depth=3, random_state=0).fit(xr, yr)
    save("et_reg", sk(m, float_input(5)), [testr])

    m = GradientBoostingClassifier(n_estimators=5, max_depth=2, random_state=0).fit(x2, y2)
    save("gb_clf_binary_int", sk(m, float_input(5)), [test2])
    m = GradientBoostingClassifier(n_estimators=5, max_depth=2, random_state=0).fit(x3, string_labels(y3))
    save("gb_clf_multi_str", sk(m, float_input(5)), [test3])
    m = GradientBoostingRegressor(n_estimators=5, max_depth=2, random_state=0).fit(xr, yr)
    save("gb_reg", sk(m, float_input(5)), [testr])



def boosting():
    import lightgbm
    import xgboost
    from onnxmltools import convert_lightgbm, convert_xgboost
    from onnxmltools.convert.common.data_types import FloatTensorType

    x2, y2 = classification(2)
    x3, y3 = classification(3, seed=1)
    xr, yr = regression()
    types = [("X", FloatTensorType([None, 5]))]
    kw = dict(n_estimators=5, max_depth=3, random_state=0)

    m = xgboost.XGBClassifier(**kw).fit(x2, y2)
    save("xgb_clf_binary", convert_xgboost(m, initial_types=types, target_opset=15), [with_nan(x2[:20])])
    m = xgboost.XGBClassifier(**kw).fit(x3, y3)
    save("xgb_clf_multi", convert_xgboost(m, initial_types=types, target_opset=15), [with_nan(x3[:20])])
    m = xgboost.XGBRegressor(**kw).fit(xr, yr)
    save("xgb_reg", convert_xgboost(m, initial_types=types, target_opset=15), [with_nan(xr[:20])])

    kw = dict(n_estimators=5, num_leaves=7, random_state=0, verbose=-1, min_child_samples=5)
    m = lightgbm.LGBMClassifier(**kw).fit(x2, y2)
    save("lgbm_clf_binary", convert_lightgbm(m, initial_types=types, target_opset=15, zipmap=False), [x2[:20]])
    m = lightgbm.LGBMClassifier(**kw).fit(x3, y3)
    save("lgbm_clf_multi", convert_lightgbm(m, initial_types=types, target_opset=15), [x3[:20]])
    m = lightgbm.LGBMRegressor(**kw).fit(xr, yr)
    save("lgbm_reg", convert_lightgbm(m, initial_types=types, target_opset=15), [with_nan(xr[:20])])


def svms():
    from sklearn.svm import SVC, SVR, LinearSVC, LinearSVR, OneClassSVM

    x2, y2 = classification(2, n=40)
    x3, y3 = classification(3, n=45, seed=1)
    xr, yr = regression(n=40)

    m = SVC(probability=True, random_state=0).fit(x2, y2)
    save("svc_prob_binary", sk(m, float_input(5)), [x2[:15]])
    m = SVC(probability=True, random_state=0, kernel="linear").fit(x3, string_labels(y3))
    save("svc_prob_multi_str", sk(m, float_input(5)), [x3[:15]])
    m = SVC(kernel="poly", degree=2).fit(x3, y3)
    save("svc_multi_noprob", sk(m, float_input(5), zipmap=False), [x3[:15]])
    m = SVC(kernel="sigmoid", gamma=0.05).fit(x2, y2)
    save("svc_binary_sigmoid_noprob", sk(m, float_input(5), zipmap=False), [x2[:15]])
    m = SVR().fit(xr, yr)
    save("svr_rbf", sk(m, float_input(5)), [xr[:15]])
    m = LinearSVR(random_state=0).fit(xr, yr)
    save("linear_svr", sk(m, float_input(5)), [xr[:15]])
    m = OneClassSVM(gamma=0.1).fit(x2)
    save("one_class_svm", sk(m, float_input(5)), [x2[:15]])
    m = LinearSVC(random_state=0).fit(x2, y2)
    save("linear_svc_binary", sk(m, float_input(5)), [x2[:15]])
    m = LinearSVC(random_state=0).fit(x3, string_labels(y3))
    save("linear_svc_multi_str", sk(m, float_input(5)), [x3[:15]])


def linear():
    from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge, SGDClassifier
    from sklearn.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB

    x2, y2 = classification(2)
    x3, y3 = classification(3, seed=1)
    xr, yr = regression()

    m = LogisticRegression().fit(x2, y2)
    save("logreg_binary", sk(m, float_input(5)), [x2[:20]])
    m = LogisticRegression().fit(x3, string_labels(y3))
    save("logreg_multi_str", sk(m, float_input(5)), [x3[:20]])
    save("logreg_multi_str_nozipmap", sk(m, float_input(5), zipmap=False), [x3[:20]])
    m = SGDClassifier(random_state=0).fit(x3, y3)
    save("sgd_clf_multi", sk(m, float_input(5)), [x3[:20]])
    m = LinearRegression().fit(xr, yr)
    save("linreg", sk(m, float_input(5)), [xr[:20]])
    m = Ridge(alpha=0.5).fit(xr, np.stack([yr, -yr], 1))
    save("ridge_two_targets", sk(m, float_input(5)), [xr[:20]])

    m = GaussianNB().fit(x3, y3)
    save("gaussian_nb", sk(m, float_input(5)), [x3[:20]])
    xc = np.abs(x3).round()
    m = MultinomialNB().fit(xc, y3)
    save("multinomial_nb", sk(m, float_input(5)), [xc[:20]])
    m = BernoulliNB(binarize=0.0).fit(x2, y2)
    save("bernoulli_nb", sk(m, float_input(5)), [x2[:20]])


def neighbours_and_networks():
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    from sklearn.neural_network import MLPClassifier, MLPRegressor

    x3, y3 = classification(3, n=40, seed=1)
    xr, yr = regression(n=40)
    m = KNeighborsClassifier(n_neighbors=3).fit(x3, y3)
    save("knn_clf", sk(m, float_input(5)), [x3[:15]])
    m = KNeighborsRegressor(n_neighbors=3).fit(xr, yr)
    save("knn_reg", sk(m, float_input(5)), [xr[:15]])
    m = MLPClassifier(hidden_layer_sizes=(8,), max_iter=300, random_state=0).fit(x3, y3)
    save("mlp_clf", sk(m, float_input(5)), [x3[:15]])
    m = MLPRegressor(hidden_layer_sizes=(8,), max_iter=300, random_state=0).fit(xr, yr)
    save("mlp_reg", sk(m, float_input(5)), [xr[:15]])


def preprocessing():
    from skl2onnx.common.data_types import (
        DictionaryType,
        FloatTensorType,
        Int64TensorType,
        StringTensorType,
    )
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import (
        Binarizer,
        LabelEncoder,
        MaxAbsScaler,
        MinMaxScaler,
        Normalizer,
        OneHotEncoder,
        StandardScaler,
    )

    x, _ = classification(2)
    test = x[:10]
    save("standard_scaler", sk(StandardScaler().fit(x), float_input(5)), [test])
    save("minmax_scaler", sk(MinMaxScaler().fit(x), float_input(5)), [test])
    save("maxabs_scaler", sk(MaxAbsScaler().fit(x), float_input(5)), [test])
    for norm in ["l1", "l2", "max"]:
        save(f"normalizer_{norm}", sk(Normalizer(norm=norm).fit(x), float_input(5)), [test])
    save("binarizer", sk(Binarizer(threshold=0.2).fit(x), float_input(5)), [test])
    holes = with_nan(x)
    m = SimpleImputer(strategy="mean").fit(holes)
    save("simple_imputer_mean", sk(m, float_input(5)), [holes[:10]])
    m = SimpleImputer(strategy="constant", fill_value=-3.0).fit(holes)
    save("simple_imputer_constant", sk(m, float_input(5)), [holes[:10]])

    cats = rng(2).randint(0, 4, size=(30, 3)).astype(np.int64)
    m = OneHotEncoder(handle_unknown="ignore").fit(cats[:20])
    save("onehot_int", sk(m, [("X", Int64TensorType([None, 3]))]), [cats[20:]])
    words = np.array(["red", "green", "blue", "teal"])[rng(3).randint(0, 4, size=(30, 2))]
    m = OneHotEncoder(handle_unknown="ignore").fit(words[:20])
    save("onehot_str", sk(m, [("X", StringTensorType([None, 2]))]), [words[20:]])

    labels = np.array(["low", "mid", "high", "mid", "low"])
    m = LabelEncoder().fit(labels)
    save("label_encoder", sk(m, [("X", StringTensorType([None]))]), [np.array(["mid", "high", "low", "low"])])

    dicts = [{"a": 1.0, "b": 2.0}, {"b": 3.0, "c": -1.0}, {"a": 0.5, "d": 4.0}]
    m = DictVectorizer(sparse=False).fit(dicts)
    save(
        "dict_vectorizer",
        sk(m, [("X", DictionaryType(StringTensorType([]), FloatTensorType([])))]),
        [{"c": 2.0, "a": -1.0, "z": 9.0}],
    )

    corpus = np.array(
        [
            "the quick brown fox",
            "jumps over the lazy dog",
            "the dog barks",
            "a fox and a dog",
            "quick quick dog",
        ]
    ).reshape(-1, 1)
    m = CountVectorizer().fit(corpus.ravel())
    save("count_vectorizer", text_to_string_split(sk(m, [("X", StringTensorType([None, 1]))])), [corpus])
    m = TfidfVectorizer().fit(corpus.ravel())
    save("tfidf_vectorizer", text_to_string_split(sk(m, [("X", StringTensorType([None, 1]))])), [corpus])


def compositions():
    from skl2onnx.common.data_types import FloatTensorType, Int64TensorType
    from sklearn.compose import ColumnTransformer
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion, make_pipeline
    from sklearn.preprocessing import Normalizer, OneHotEncoder, StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    x3, y3 = classification(3, seed=1)
    m = make_pipeline(StandardScaler(), LogisticRegression()).fit(x3, y3)
    save("pipeline_scaler_logreg", sk(m, float_input(5)), [x3[:15]])

    m = make_pipeline(
        FeatureUnion([("pca", PCA(n_components=2)), ("norm", Normalizer())]),
        DecisionTreeClassifier(max_depth=3, random_state=0),
    ).fit(x3, y3)
    save("feature_union_tree", sk(m, float_input(5)), [x3[:15]])

    # Three numeric columns scaled and one categorical column (small integers) one-hot encoded.
    cats = rng(4).randint(0, 3, size=(x3.shape[0], 1)).astype(np.float32)
    data = np.hstack([x3[:, :3], cats])
    ct = ColumnTransformer([("num", StandardScaler(), [0, 1, 2]), ("cat", OneHotEncoder(), [3])])
    m = make_pipeline(ct, LogisticRegression()).fit(data, y3)
    save("column_transformer_logreg", sk(m, float_input(4)), [data[:15]])


def text_to_string_split(model):
    """skl2onnx tokenizes with com.microsoft's Tokenizer, which is no standard operator: the
    same split on spaces by ai.onnx's StringSplit (opset 20), whose padding ("") matches no
    n-gram of TfIdfVectorizer's pool, as Tokenizer's does not."""
    for i, node in enumerate(model.graph.node):
        if node.op_type == "Tokenizer":
            split = helper.make_node(
                "StringSplit", [node.input[0]], [node.output[0], node.output[0] + "_count"], delimiter=" ", name=node.name
            )
            model.graph.node[i].CopyFrom(split)
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = max(o.version, 20)
    keep = [o for o in model.opset_import if o.domain != "com.microsoft"]
    del model.opset_import[:]
    model.opset_import.extend(keep)
    return model


def handmade():
    """Models no converter writes, built node by node: every tree node mode, aggregate function
    and post-transform, missing-value tracks, *_as_tensor attributes, and the map and mapping
    operators."""
    from onnx import TensorProto as T

    def model(nodes, inputs, outputs, ml=3):
        graph = helper.make_graph(nodes, "g", inputs, outputs)
        return helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", ml)],
            ir_version=8,
        )

    r = rng(5)
    x = r.randn(12, 3).astype(np.float32)
    x[::4, 1] = np.nan
    x[1, 0] = 0.25  # on a split, for the EQ/NEQ and LT/LEQ borders
    modes = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]
    aggregates = ["SUM", "AVERAGE", "MIN", "MAX"]
    for i, mode in enumerate(modes):
        aggregate = aggregates[i % 4]
        # Two trees of a root and two leaves each, two targets.
        attrs = dict(
            nodes_treeids=[0, 0, 0, 1, 1, 1],
            nodes_nodeids=[0, 1, 2, 0, 1, 2],
            nodes_featureids=[0, 0, 0, 1, 0, 0],
            nodes_values=[0.25, 0, 0, -0.1, 0, 0],
            nodes_modes=[mode, "LEAF", "LEAF", mode, "LEAF", "LEAF"],
            nodes_truenodeids=[1, 0, 0, 1, 0, 0],
            nodes_falsenodeids=[2, 0, 0, 2, 0, 0],
            nodes_missing_value_tracks_true=[0, 0, 0, i % 2, 0, 0],
            target_treeids=[0, 0, 0, 1, 1],
            target_nodeids=[1, 2, 2, 1, 2],
            target_ids=[0, 0, 1, 1, 0],
            target_weights=[1.5, -0.5, 2.0, 0.75, 3.0],
            n_targets=2,
            aggregate_function=aggregate,
            base_values=[0.1, -0.2],
        )
        node = helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml", **attrs)
        m = model(
            [node],
            [helper.make_tensor_value_info("X", T.FLOAT, [None, 3])],
            [helper.make_tensor_value_info("Y", T.FLOAT, [None, 2])],
        )
        save(f"hand_tree_reg_{mode.lower()}_{aggregate.lower()}", m, [x])

    transforms = ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"]
    for t in transforms:
        for labels in ("ints", "strings"):
            attrs = dict(
                nodes_treeids=[0, 0, 0, 1, 1, 1],
                nodes_nodeids=[0, 1, 2, 0, 1, 2],
                nodes_featureids=[2, 0, 0, 1, 0, 0],
                nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF", "BRANCH_LT", "LEAF", "LEAF"],
                nodes_truenodeids=[1, 0, 0, 1, 0, 0],
                nodes_falsenodeids=[2, 0, 0, 2, 0, 0],
                nodes_missing_value_tracks_true=[0, 0, 0, 1, 0, 0],
                class_treeids=[0, 0, 0, 1, 1],
                class_nodeids=[1, 2, 2, 1, 2],
                class_ids=[0, 1, 2, 2, 0],
                post_transform=t,
            )
            # Version 3's tensors for the thresholds, weights and base values (onnxruntime
            # reads them as the input's type, float here).
            attrs["nodes_values_as_tensor"] = numpy_helper.from_array(
                np.array([0.1, 0, 0, 0.3, 0, 0], dtype=np.float32)
            )
            attrs["class_weights_as_tensor"] = numpy_helper.from_array(
                np.array([0.5, 1.0, 0.25, 0.0, 2.0], dtype=np.float32)
            )
            attrs["base_values_as_tensor"] = numpy_helper.from_array(
                np.array([0.0, 0.5, -0.5], dtype=np.float32)
            )
            if labels == "ints":
                attrs["classlabels_int64s"] = [4, 5, 6]
                label_type = T.INT64
            else:
                attrs["classlabels_strings"] = ["x", "y", "z"]
                label_type = T.STRING
            node = helper.make_node(
                "TreeEnsembleClassifier", ["X"], ["L", "S"], domain="ai.onnx.ml", **attrs
            )
            m = model(
                [node],
                [helper.make_tensor_value_info("X", T.FLOAT, [None, 3])],
                [
                    helper.make_tensor_value_info("L", label_type, [None]),
                    helper.make_tensor_value_info("S", T.FLOAT, [None, 3]),
                ],
            )
            save(f"hand_tree_clf_{t.lower()}_{labels}", m, [x])

    # A binary tree classifier with mixed-sign weights on one class (a margin), logistic.
    node = helper.make_node(
        "TreeEnsembleClassifier", ["X"], ["L", "S"], domain="ai.onnx.ml",
        nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
        nodes_values=[0.0, 0, 0], nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"],
        nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0],
        class_treeids=[0, 0], class_nodeids=[1, 2], class_ids=[1, 1],
        class_weights=[-1.5, 0.75], classlabels_strings=["no", "yes"], post_transform="LOGISTIC",
    )
    m = model(
        [node],
        [helper.make_tensor_value_info("X", T.FLOAT, [None, 3])],
        [helper.make_tensor_value_info("L", T.STRING, [None]), helper.make_tensor_value_info("S", T.FLOAT, [None, 2])],
    )
    save("hand_tree_clf_binary_margin_logistic", m, [np.nan_to_num(x)])

    # CategoryMapper both ways, CastMap dense and sparse, LabelEncoder 2.
    node = helper.make_node(
        "CategoryMapper", ["S"], ["I"], domain="ai.onnx.ml",
        cats_strings=["a", "b", "c"], cats_int64s=[10, 20, 30], default_int64=-7,
    )
    m = model([node], [helper.make_tensor_value_info("S", T.STRING, [None])],
              [helper.make_tensor_value_info("I", T.INT64, [None])])
    save("hand_category_mapper_to_ints", m, [np.array(["b", "q", "a", "c"])])
    node = helper.make_node(
        "CategoryMapper", ["I"], ["S"], domain="ai.onnx.ml",
        cats_strings=["a", "b", "c"], cats_int64s=[10, 20, 30], default_string="none",
    )
    m = model([node], [helper.make_tensor_value_info("I", T.INT64, [2, 2])],
              [helper.make_tensor_value_info("S", T.STRING, [2, 2])])
    save("hand_category_mapper_to_strings", m, [np.array([[30, 5], [10, 20]], dtype=np.int64)])
    node = helper.make_node(
        "LabelEncoder", ["S"], ["F"], domain="ai.onnx.ml",
        keys_strings=["a", "b"], values_floats=[0.5, 1.5], default_float=-1.0,
    )
    m = model([node], [helper.make_tensor_value_info("S", T.STRING, [None])],
              [helper.make_tensor_value_info("F", T.FLOAT, [None])], ml=2)
    save("hand_label_encoder_2", m, [np.array(["b", "z", "a"])])
    map_type = helper.make_map_type_proto(T.INT64, helper.make_tensor_type_proto(T.FLOAT, []))
    for form, cast in [("DENSE", "TO_FLOAT"), ("SPARSE", "TO_FLOAT"), ("DENSE", "TO_INT64")]:
        node = helper.make_node(
            "CastMap", ["M"], ["Y"], domain="ai.onnx.ml", map_form=form, cast_to=cast, max_map=6
        )
        out_type = T.INT64 if cast == "TO_INT64" else T.FLOAT
        m = model([node], [helper.make_value_info("M", map_type)],
                  [helper.make_tensor_value_info("Y", out_type, None)])
        save(f"hand_cast_map_{form.lower()}_{cast.lower()}", m, [{4: 2.5, 1: -1.0, 2: 7.0}])


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    groups = [trees, boosting, svms, linear, neighbours_and_networks, preprocessing, compositions, handmade]
    only = sys.argv[1:]
    for group in groups:
        if only and group.__name__ not in only:
            continue
        group()
    total = sum(
        os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(OUT) for f in fs
    )
    print(f"{len(os.listdir(OUT))} models, {total / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
