# shellcheck shell=bash
# How `make demo` and the Adult benchmarks load UCI Adult (source it):
# ADULT_LOAD_ARGS holds the `dptrain load` options before the files.
#
# Public preprocessing, so that models trained on the table are differentially
# private end to end (docs/loading-data.md): the category lists are those of
# the dataset's documentation (adult.names); the numeric bounds are the census
# extract's public ranges (age 17-90, hours-per-week 1-99 and capital gain
# 0-99999 are its top codes, education-num counts the 16 documented levels;
# fnlwgt and capital loss get generous round ranges). Nothing is read from the
# rows. Official split, rows with a missing value ('?') dropped.
ADULT_LOAD_ARGS=(
  --no-header --drop-missing --positive '>50K'
  --columns age,workclass,fnlwgt,education,education_num,marital_status,occupation,relationship,race,sex,capital_gain,capital_loss,hours_per_week,native_country,income
  --bounds 'age=17:90,fnlwgt=0:1500000,education_num=1:16,capital_gain=0:99999,capital_loss=0:5000,hours_per_week=1:99'
  --categories 'workclass=Private|Self-emp-not-inc|Self-emp-inc|Federal-gov|Local-gov|State-gov|Without-pay|Never-worked'
  --categories 'education=Bachelors|Some-college|11th|HS-grad|Prof-school|Assoc-acdm|Assoc-voc|9th|7th-8th|12th|Masters|1st-4th|10th|Doctorate|5th-6th|Preschool'
  --categories 'marital_status=Married-civ-spouse|Divorced|Never-married|Separated|Widowed|Married-spouse-absent|Married-AF-spouse'
  --categories 'occupation=Tech-support|Craft-repair|Other-service|Sales|Exec-managerial|Prof-specialty|Handlers-cleaners|Machine-op-inspct|Adm-clerical|Farming-fishing|Transport-moving|Priv-house-serv|Protective-serv|Armed-Forces'
  --categories 'relationship=Wife|Own-child|Husband|Not-in-family|Other-relative|Unmarried'
  --categories 'race=White|Asian-Pac-Islander|Amer-Indian-Eskimo|Other|Black'
  --categories 'sex=Female|Male'
  --categories 'native_country=United-States|Cambodia|England|Puerto-Rico|Canada|Germany|Outlying-US(Guam-USVI-etc)|India|Japan|Greece|South|China|Cuba|Iran|Honduras|Philippines|Italy|Poland|Jamaica|Vietnam|Mexico|Portugal|Ireland|France|Dominican-Republic|Laos|Ecuador|Taiwan|Haiti|Columbia|Hungary|Guatemala|Nicaragua|Scotland|Thailand|Yugoslavia|El-Salvador|Trinadad&Tobago|Peru|Hong|Holand-Netherlands'
)
