// The campaign part of _mroce (campaign_binding.cc): run_campaign.
#pragma once

#include <pybind11/pybind11.h>

void BindCampaign(pybind11::module_& m);
